/**
 * One process per database runs the embedded engine (`indexer/engine-owner.ts`): a second service
 * (or an indexer command) on the same database is refused at start with a clear message and exit
 * code 1, also while the first is paused (SIGSTOP); once the first stops, the next one starts. An
 * owner whose lock is taken from it while its connection was lost stops (exit 1).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { ENGINE_OWNER_LOCK } from '../../indexer/locks.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { runTool } from '../support/run-tool.js';
import { waitUntil } from '../support/wait.js';
import { startService } from './service-process.js';

const root = mkdtempSync(join(tmpdir(), 'tagwise-owner-'));
const children: ChildProcess[] = [];
let t: TestDatabase | undefined;

afterAll(async () => {
  for (const child of children) {
    if (child.signalCode === 'SIGSTOP') child.kill('SIGCONT');
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await t?.drop();
  rmSync(root, { recursive: true, force: true });
});

const REFUSAL = 'another Tagwise process already runs the embedded search engine on this database';

async function start(name: string) {
  const svc = await startService(join(root, name), { DATABASE_URL: t!.url, DEMO_DATA: 'false', IMAGE_CACHE_WARM: 'off', DUMP_AT: 'off' });
  children.push(svc.child);
  return svc;
}

describe('one embedded engine per database', () => {
  it('refuses a second process, paused owner or not, and lets the next one start once the first stops', async () => {
    t = await createTestDatabase();
    const first = await start('a');
    await first.waitFor('indexer following the outbox');

    const second = await start('b');
    expect((await second.exited).code).toBe(1);
    expect(second.output()).toContain(REFUSAL);
    expect(second.output()).toContain('stop the other one, or set OPENSEARCH_URL');

    // a paused owner keeps its connection, hence its lock
    first.child.kill('SIGSTOP');
    try {
      const third = await start('c');
      expect((await third.exited).code).toBe(1);
      expect(third.output()).toContain(REFUSAL);
    } finally {
      first.child.kill('SIGCONT');
    }

    // the indexer's commands would write the same outbox and their own snapshot: refused too
    const cli = await runTool('indexer/cli.ts', ['sync'], { DATABASE_URL: t!.url, DATA_DIR: join(root, 'cli') });
    expect(cli.code).toBe(1);
    expect(cli.stderr).toContain(REFUSAL);

    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);
    const next = await start('b');
    await next.waitFor('indexer following the outbox');
    expect((await fetch(`${next.base}/readyz`)).status).toBe(200);
    next.child.kill('SIGTERM');
    expect((await next.exited).code).toBe(0);
  }, 180_000);

  it('an owner that lost its lock to another process stops', async () => {
    const owner = await start('d');
    await owner.waitFor('indexer following the outbox');
    const admin = postgres(t!.url, { max: 1, onnotice: () => {} });
    try {
      // the owner's lock connection drops (as when the database restarts) and another takes the lock
      await admin.unsafe(
        `select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted
           and database = (select oid from pg_database where datname = current_database()) and ((classid::bigint << 32) | objid::bigint) = $1::bigint`,
        [ENGINE_OWNER_LOCK],
      );
      await waitUntil('the lock to be free', async () => {
        const [row] = await admin.unsafe<{ ok: boolean }[]>('select pg_try_advisory_lock($1::bigint) as ok', [ENGINE_OWNER_LOCK]);
        return row?.ok === true;
      }, 10_000, 50);
      expect((await owner.exited).code).toBe(1);
      expect(owner.output()).toContain('lost the embedded search engine to another process');
    } finally {
      await admin.end();
    }
  }, 120_000);
});
