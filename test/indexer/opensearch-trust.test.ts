/**
 * OpenSearch indices record the database they reflect in their mapping's `_meta`
 * (`src/search/opensearch/database-mark.ts`), kept up to date after batches, and an indexer
 * starting (`repairIndexes`, as `npm run indexer -- sync` does) beside another database, or
 * beside this one restored from an older backup, rebuilds every index. Against the fake node
 * (`test/support/fake-opensearch.ts`) and a real PostgreSQL; the oracle is plain SQL.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import type { Database } from '../../src/db/client.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { FakeOpenSearch } from '../support/fake-opensearch.js';
import { bulkBoard } from './fixtures.js';
import { restoreBackup, takeBackup, writeAfterBackup } from './restore-backup.js';

let t: TestDatabase;
let other: TestDatabase | undefined;
let fake: FakeOpenSearch;
const engines: OpenSearchEngine[] = [];
beforeAll(async () => {
  t = await createTestDatabase();
  await bulkBoard(t.db, { images: 120, users: 5, tags: 20, prefix: 'ostrust' });
});
beforeEach(async () => {
  fake = await FakeOpenSearch.start();
});
afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  await fake.stop();
});
afterAll(async () => {
  await t?.drop();
  await other?.drop();
});

/** A new engine and indexer on the fake node, repaired as an indexer process does at start. */
async function openRepaired(db: Database): Promise<{ engine: OpenSearchEngine; indexer: Indexer; lines: string[] }> {
  const lines: string[] = [];
  const engine = new OpenSearchEngine({ node: fake.url, indexPrefix: 'trust_', retireDelayMs: 0 });
  engines.push(engine);
  const indexer = new Indexer({ db, engine, log: (m) => lines.push(m), markIntervalMs: 0 });
  await indexer.repairIndexes();
  await indexer.syncOnce();
  return { engine, indexer, lines };
}

/** The images index holds exactly the ids SQL holds. */
async function expectImages(db: Database, engine: OpenSearchEngine): Promise<void> {
  const rows = (await db.$client.unsafe<{ id: number }[]>('select id from images order by id')).map((r) => r.id);
  expect(await engine.count('images')).toBe(rows.length);
  const held = await engine.get('images', [...rows, rows.at(-1)! + 1, rows.at(-1)! + 40]);
  expect([...held.keys()].sort((a, b) => a - b)).toEqual(rows);
}

/** The mark on the images index behind its alias. */
function imagesMark(): unknown {
  const index = [...fake.indices.values()].find((i) => /^trust_images_v\d+$/.test(i.name));
  return (index?.mappings._meta as Record<string, unknown> | undefined)?.tagwise_database;
}

describe('OpenSearch indices of another database, or newer than it', () => {
  it('the mark follows the database; a restore from an older backup rebuilds every index', async () => {
    const first = await openRepaired(t.db);
    expect(first.lines.some((l) => l.startsWith('rebuilding indices: images (no documents)'))).toBe(true);
    const before = imagesMark() as { database: string; changeSeq: number };
    expect(before.database).toMatch(/^\d+\/\d+$/);
    const backup = await takeBackup(t.db);
    await writeAfterBackup(t.db, first.indexer);
    const after = imagesMark() as { changeSeq: number };
    expect(after.changeSeq).toBeGreaterThan(backup.changeSeq);
    await expectImages(t.db, first.engine);

    await restoreBackup(t.db, backup);
    const { engine, lines } = await openRepaired(t.db);
    expect(lines.some((l) => /^rebuilding every index: the indices reflect change-log position \d+ and the database has reached only \d+/.test(l))).toBe(
      true,
    );
    await expectImages(t.db, engine);
    expect((imagesMark() as { changeSeq: number }).changeSeq).toBe(backup.changeSeq);
    // trusted again at the next start
    const again = await openRepaired(t.db);
    expect(again.lines.filter((l) => l.startsWith('rebuilding'))).toEqual([]);
  });

  it('indices of another database are rebuilt from this one', async () => {
    await openRepaired(t.db);
    other = await createTestDatabase();
    await bulkBoard(other.db, { images: 30, users: 3, tags: 10, prefix: 'osother' });
    const { engine, lines } = await openRepaired(other.db);
    expect(lines.some((l) => /^rebuilding every index: the indices were written beside another database/.test(l))).toBe(true);
    await expectImages(other.db, engine);
  });
});
