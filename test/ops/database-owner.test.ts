/**
 * Who stops the embedded PostgreSQL. A command-line tool run while the service is down starts the
 * board's PostgreSQL; a service started meanwhile takes it over, so the tool, ending while the
 * service is still starting, leaves it running: the service finishes its start and serves without
 * a restart of its database. A tool run beside the running service leaves it alone too; the
 * service's graceful stop then stops PostgreSQL.
 *
 * The first tool is the CLIs' own frame (`onBoardDatabase`, as import, seed and dump use it) held
 * open until told to end, since no command of the board lasts long enough by itself.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAlive } from '../../src/db/embedded-postgres.js';
import { ROOT } from '../support/programs.js';
import { childEnv, runTool } from '../support/run-tool.js';
import { cleanUpAfter, postgresPid, type Service, startService } from './service-process.js';

const HOLD = `
  import { loadConfigOrExit } from './src/config.js';
  import { onBoardDatabase } from './src/cli/board.js';
  process.exitCode = await onBoardDatabase(loadConfigOrExit(), 1, async (db) => {
    await db.$client\`select 1\`;
    console.log('holding');
    await new Promise((resolve) => process.stdin.once('data', resolve));
    return 0;
  });
`;

let dataDir: string;
let svc: Service | undefined;
const children: ChildProcess[] = [];

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-owner-'));
});

afterAll(() => cleanUpAfter(children, dataDir));

/** Ten answers of /healthz over two seconds. */
async function healthStatuses(base: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++) {
    statuses.push((await fetch(`${base}/healthz`)).status);
    await sleep(200);
  }
  return statuses;
}

describe('the embedded PostgreSQL has one owner', () => {
  it('a tool that started it while the service was down leaves it to the service started meanwhile', async () => {
    const holder = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', HOLD], {
      cwd: ROOT,
      env: childEnv({ DATA_DIR: dataDir }),
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    children.push(holder);
    const holderExit = once(holder, 'exit');
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on('data', (d: Buffer) => d.toString().includes('holding') && resolve());
      holder.once('exit', (code) => reject(new Error(`the tool exited ${code} before holding the database`)));
    });
    const pid = postgresPid(dataDir)!;
    expect(isAlive(pid)).toBe(true);

    svc = await startService(dataDir, { DEMO_IMAGES: '10', RATE_LIMITS: 'off' });
    children.push(svc.child);
    await svc.waitFor(/embedded PostgreSQL on port/, 120_000); // joined (and taken over)
    // the tool ends while the service is still starting
    holder.stdin!.end('done\n');
    expect((await holderExit)[0]).toBe(0);
    await svc.waitFor('indexer following the outbox', 180_000);

    expect(postgresPid(dataDir)).toBe(pid);
    expect(isAlive(pid)).toBe(true);
    expect(await healthStatuses(svc.base)).toEqual(Array(10).fill(200));
    expect(svc.lines.filter((l) => l.msg === 'embedded PostgreSQL had stopped; restarted it')).toEqual([]);
  }, 300_000);

  it('a command run beside the running service leaves its PostgreSQL alone; the service stops it at its end', async () => {
    const service = svc!;
    const pid = postgresPid(dataDir)!;
    const created = await runTool('src/cli/admin.ts', ['user', 'create', 'owner-check'], { DATA_DIR: dataDir });
    expect(created.code, created.stderr).toBe(0);
    expect(isAlive(pid)).toBe(true);
    expect(await healthStatuses(service.base)).toEqual(Array(10).fill(200));

    service.child.kill('SIGTERM');
    expect(await service.exited).toEqual({ code: 0, signal: null });
    expect(isAlive(pid)).toBe(false);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  }, 120_000);
});
