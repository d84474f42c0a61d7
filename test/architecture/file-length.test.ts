/**
 * The file rule of `npm run check` (tools/check/file-length.ts), run as a program on small trees:
 * one with a file a line over the limit in each checked folder, beside files it must leave alone,
 * one where every file fits, and the project itself.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const made: string[] = [];

/** A file of exactly `lines` lines, each a statement, ending in a newline. */
const text = (lines: number) => Array.from({ length: lines }, (_, i) => `export const v${i} = ${i};\n`).join('');

/** A project tree of files of the given lengths. */
function tree(files: Record<string, number>): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-file-length-'));
  made.push(dir);
  for (const [file, lines] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text(lines));
  }
  return dir;
}

function check(dir: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'tools/check/file-length.ts'), dir], { cwd: root, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe('source files over 600 lines', () => {
  it('fails on a file of 601 lines in each checked folder and names each, leaving the rest alone', () => {
    const dir = tree({
      'src/search/long.ts': 601,
      'grammar/long.ts': 601,
      'indexer/long.ts': 601,
      'bench/long.ts': 601,
      'src/search/fits.ts': 600,
      'src/db/migrations/meta.ts': 5000,
      'src/types.d.ts': 900,
      'test/long.test.ts': 900,
      'tools/long.ts': 900,
    });
    const { status, output } = check(dir);
    expect(status).toBe(1);
    const named = output.split('\n').filter((l) => l.includes(': 601 lines'));
    expect(named.sort()).toEqual([
      'bench/long.ts: 601 lines (at most 600)',
      'grammar/long.ts: 601 lines (at most 600)',
      'indexer/long.ts: 601 lines (at most 600)',
      'src/search/long.ts: 601 lines (at most 600)',
    ]);
    expect(output).not.toContain('fits.ts');
    expect(output).not.toContain('migrations');
    expect(output).toContain('4 file(s) over 600 lines');
  });

  it('passes when every file fits', () => {
    const { status, output } = check(tree({ 'src/a.ts': 600, 'bench/b.ts': 1 }));
    expect(status).toBe(0);
    expect(output).toContain('no source file over 600 lines');
  });

  it('passes on the project itself', () => {
    const { status, output } = check(root);
    expect(output).toContain('no source file over 600 lines');
    expect(status).toBe(0);
  });
});
