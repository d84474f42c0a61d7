/**
 * The service's log destination gathers lines before writing them (src/log.ts): every line still
 * reaches stdout, whether the process exits at once after it or stays up with nothing more to say.
 * Checked on a real process reading its real stdout pipe.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOG_MODULE = fileURLToPath(new URL('../../src/log.ts', import.meta.url));

/** Runs `body` in a child process with `log` made by `createLogger`; calls `onLine` as lines arrive. */
function runWithLogger(body: string, onLine: (line: string, at: number) => void): Promise<{ code: number | null; closedAt: number }> {
  const script = `import { createLogger } from ${JSON.stringify(LOG_MODULE)};\nconst log = createLogger({ logLevel: 'info' });\n${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let pending = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (line) onLine(line, Date.now());
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, closedAt: Date.now() }));
  });
}

describe('log lines written in batches', () => {
  it('writes every line logged just before the process exits, in order, text beyond ASCII intact', async () => {
    // (500 lines are several batches; each line's bytes outnumber its characters.) Six processes:
    // the last lines once overtook a batch still being written in about one exit in eight.
    const runs = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const lines: string[] = [];
        const { code } = await runWithLogger("for (let i = 0; i < 500; i++) log.info({ n: i, tag: 'pokémon ★ 🦄' }, 'request');\nprocess.exit(0);", (line) => lines.push(line));
        return { code, parsed: lines.map((l) => JSON.parse(l) as { n: number; tag: string }) };
      }),
    );
    for (const { code, parsed } of runs) {
      expect(code).toBe(0);
      expect(parsed.map((l) => l.n)).toEqual(Array.from({ length: 500 }, (_, i) => i));
      expect(new Set(parsed.map((l) => l.tag))).toEqual(new Set(['pokémon ★ 🦄']));
    }
  }, 30_000);

  it('writes a lone line on a quiet process long before it exits', async () => {
    const arrivals: { line: string; at: number }[] = [];
    // one short line (far under a batch), then 3 s of idling before the exit: the line must not
    // wait for the exit's final write
    const { code, closedAt } = await runWithLogger("log.info('alone');\nsetTimeout(() => process.exit(0), 3000);", (line, at) => arrivals.push({ line, at }));
    expect(code).toBe(0);
    expect(arrivals).toHaveLength(1);
    expect(JSON.parse(arrivals[0]!.line)).toMatchObject({ msg: 'alone', level: 30 });
    expect(closedAt - arrivals[0]!.at).toBeGreaterThan(2_000);
  }, 20_000);
});
