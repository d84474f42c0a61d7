/**
 * The service beside a database restored from an older backup (`test/indexer/restore-backup.ts`):
 * its embedded engine's files hold images and scores the database no longer has. At start it
 * rebuilds every index before it follows the outbox and says it is ready, and then answers what
 * the database holds. The oracle is plain SQL.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { waitUntil } from '../support/wait.js';
import { bulkBoard } from '../indexer/fixtures.js';
import { restoreBackup, takeBackup, writeAfterBackup } from '../indexer/restore-backup.js';
import { startService, type Service } from './service-process.js';

const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-restored-'));
const children: ChildProcess[] = [];
let t: TestDatabase | undefined;

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await t?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<Service> {
  const svc = await startService(dataDir, { DATABASE_URL: t!.url, DEMO_DATA: 'false', IMAGE_CACHE_WARM: 'off', DUMP_AT: 'off', RATE_LIMITS: 'off' });
  children.push(svc.child);
  await svc.waitFor('indexer following the outbox');
  return svc;
}

/** The first page of images by score, and the total, as the service answers them. */
async function topByScore(svc: Service): Promise<{ total: number; ids: number[] }> {
  const res = await fetch(`${svc.base}/api/v1/json/search/images?q=*&sf=score&sd=desc&per_page=50`);
  const body = (await res.json()) as { total: number; images: { id: number }[] };
  return { total: body.total, ids: body.images.map((i) => i.id) };
}

/** The same from SQL. */
async function expected(): Promise<{ total: number; ids: number[] }> {
  const rows = await t!.db.$client.unsafe<{ id: number }[]>(
    'select id from images where approved and not hidden_from_users order by score desc, id desc',
  );
  return { total: rows.length, ids: rows.slice(0, 50).map((r) => r.id) };
}


describe('a database restored from an older backup', () => {
  it('is met with a rebuild at start, before the service is ready', async () => {
    t = await createTestDatabase();
    await bulkBoard(t.db, { images: 150, users: 5, tags: 20, prefix: 'restored' });
    const first = await start();
    expect(await topByScore(first)).toEqual(await expected());
    const backup = await takeBackup(t.db);
    await writeAfterBackup(t.db);
    const later = await expected();
    await waitUntil('the changes in searches', async () => JSON.stringify(await topByScore(first)) === JSON.stringify(later), 20_000);
    first.child.kill('SIGTERM');
    expect((await first.exited).code).toBe(0);

    await restoreBackup(t.db, backup);
    const second = await start();
    const rebuilt = second.lines.findIndex((l) => String(l.msg).startsWith('rebuilding every index: the indices reflect change-log position'));
    const following = second.lines.findIndex((l) => l.msg === 'indexer following the outbox');
    expect(rebuilt).toBeGreaterThanOrEqual(0);
    expect(rebuilt).toBeLessThan(following);
    expect((await fetch(`${second.base}/readyz`)).status).toBe(200);
    expect(await topByScore(second)).toEqual(await expected());
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  }, 180_000);
});
