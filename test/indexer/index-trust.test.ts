/**
 * Index files newer than the database, or of another database, are not trusted: the files record
 * the database they were written beside and how far its change log and outbox had gone, and a
 * new engine on the same directory, repaired by the indexer as `src/main.ts` does at start (while
 * `/readyz` says `starting`), rebuilds every index when the database is another one or has not
 * reached what the files claim (restored from an older backup). The oracle is plain SQL over the
 * images table and the indexer's drift check.
 * A restore from an older backup is played by `restore-backup.ts`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import type { Database } from '../../src/db/client.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { bulkBoard } from './fixtures.js';
import { restoreBackup, takeBackup, writeAfterBackup } from './restore-backup.js';

let t: TestDatabase;
let other: TestDatabase | undefined;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  await bulkBoard(t.db, { images: 200, users: 5, tags: 20, prefix: 'trust' });
});
afterEach(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});
afterAll(async () => {
  await t?.drop();
  await other?.drop();
});

/** Open an engine on the directory and repair it as the service does at start. */
async function openRepaired(db: Database): Promise<{ engine: EmbeddedEngine; indexer: Indexer; lines: string[] }> {
  const lines: string[] = [];
  const engine = new EmbeddedEngine({ dataDir });
  const indexer = new Indexer({ db, engine, log: (m) => lines.push(m) });
  await indexer.repairIndexes();
  await indexer.syncOnce();
  return { engine, indexer, lines };
}

/** The engine holds exactly the image ids SQL holds, and no document drifts. */
async function expectCorrect(db: Database, engine: EmbeddedEngine, indexer: Indexer): Promise<void> {
  const rows = (await db.$client.unsafe<{ id: number }[]>('select id from images order by id')).map((r) => r.id);
  const hits = await engine.search('images', { query: { match_all: {} }, sort: [{ id: { order: 'asc' } }], size: rows.length + 100 });
  expect(hits.total).toBe(rows.length);
  expect(hits.ids).toEqual(rows);
  const report = await indexer.verify(undefined, { sample: 1000 });
  expect(report.indexes.filter((r) => !r.ok)).toEqual([]);
}

describe('index files newer than the database, or of another one', () => {
  it('a database restored from an older backup: every index is rebuilt, then trusted again', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-trust-'));
    const first = await openRepaired(t.db);
    const backup = await takeBackup(t.db);
    await writeAfterBackup(t.db, first.indexer);
    await first.engine.close();

    await restoreBackup(t.db, backup);
    const { engine, indexer, lines } = await openRepaired(t.db);
    expect(lines.some((l) => /^rebuilding every index: the indices reflect change-log position \d+ and the database has reached only \d+/.test(l))).toBe(
      true,
    );
    await expectCorrect(t.db, engine, indexer);
    // the rebuilt files claim no more than the database holds: the next start trusts them
    await writeAfterBackup(t.db, indexer);
    await engine.close();
    const again = await openRepaired(t.db);
    expect(again.lines.filter((l) => l.startsWith('rebuilding'))).toEqual([]);
    await expectCorrect(t.db, again.engine, again.indexer);
    await again.engine.close();
  });

  it('files written before the database mark: an outbox position beyond the database still tells', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-trust-'));
    const first = await openRepaired(t.db);
    const backup = await takeBackup(t.db);
    await writeAfterBackup(t.db, first.indexer);
    await first.engine.close();
    const listing = join(dataDir, 'index', 'aliases.json');
    const { database: _mark, ...unmarked } = JSON.parse(readFileSync(listing, 'utf8')) as Record<string, unknown>;
    writeFileSync(listing, JSON.stringify(unmarked));

    await restoreBackup(t.db, backup);
    const { engine, indexer, lines } = await openRepaired(t.db);
    expect(lines.some((l) => /^rebuilding every index: \w+ covers outbox position \d+ and the database has handed out only \d+/.test(l))).toBe(true);
    await expectCorrect(t.db, engine, indexer);
    await engine.close();
  });

  it('files of another database: every index is rebuilt from this one', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-trust-'));
    const first = await openRepaired(t.db);
    await first.engine.close();
    other = await createTestDatabase();
    // fewer images with the same ids: an index taken as it is would answer the other board's
    await bulkBoard(other.db, { images: 60, users: 3, tags: 10, prefix: 'other' });
    const { engine, indexer, lines } = await openRepaired(other.db);
    expect(lines.some((l) => /^rebuilding every index: the indices were written beside another database/.test(l))).toBe(true);
    await expectCorrect(other.db, engine, indexer);
    await engine.close();
  });
});
