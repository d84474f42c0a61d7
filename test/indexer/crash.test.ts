/**
 * At-least-once: a batch that dies between the engine write and the outbox delete leaves its rows,
 * and a new indexer applying them again converges (verify finds no drift).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import { comments, images, searchOutbox, users } from '../../src/db/schema/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { bulkBoard } from './fixtures.js';

let t: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-indexer-crash-'));
});
afterAll(async () => {
  await t?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const pending = async () => (await t.db.select({ n: sql<number>`count(*)::int` }).from(searchOutbox))[0]!.n;

describe('crash between write and delete', () => {
  it('immediate mode: the rows stay, a new indexer reapplies them, nothing drifts', async () => {
    const { db } = t;
    const engine = new EmbeddedEngine();
    const crashing = new Indexer({
      db, engine, deleteRows: 'immediate', outboxBatchSize: 50,
      hooks: { afterApply: () => { throw new Error('simulated crash'); } },
    });
    await crashing.ensureIndexes();
    const [u] = await db.insert(users).values({ name: 'Crash Tester', slug: 'crash-tester' }).returning();
    const imgs = await db.insert(images).values(
      Array.from({ length: 120 }, (_, k) => ({ imageFormat: 'png' as const, imageMimeType: 'image/png' as const, userId: u!.id, score: k })),
    ).returning();
    await db.insert(comments).values(imgs.slice(0, 30).map((i) => ({ imageId: i.id, userId: u!.id, body: `c${i.id}` })));
    const before = await pending();
    expect(before).toBeGreaterThan(0);

    await expect(crashing.syncOnce()).rejects.toThrow('simulated crash');
    // the first batch reached the engine, but its rows are still in the outbox
    expect(await engine.count('images')).toBeGreaterThan(0);
    expect(await pending()).toBe(before);

    // changes keep coming while nobody is syncing
    await db.update(users).set({ name: 'Renamed Tester' }).where(eq(users.id, u!.id));
    await db.delete(images).where(eq(images.id, imgs[0]!.id));

    const restarted = new Indexer({ db, engine, deleteRows: 'immediate', outboxBatchSize: 50 });
    expect(await restarted.syncOnce()).toBeGreaterThanOrEqual(before);
    expect(await pending()).toBe(0);
    const report = await restarted.verify(undefined, { sample: 200 });
    expect(report.indexes.filter((r) => !r.ok)).toEqual([]);
    expect(report.ok).toBe(true);
    expect((await engine.get('images', [imgs[1]!.id])).get(imgs[1]!.id)).toMatchObject({ uploader: 'renamed tester' });
  });

  it('flush mode: a process killed before its snapshot replays from the outbox on restart', async () => {
    const { db } = t;
    // start from a durable snapshot of the board so far
    const first = new EmbeddedEngine({ dataDir });
    const a = new Indexer({ db, engine: first });
    await a.ensureIndexes();
    await a.reindex();
    await a.syncOnce();
    expect(await pending()).toBe(0);

    await bulkBoard(db, { images: 300, prefix: 'crash' });
    // the bulk load skipped the outbox: queue its records by hand
    await db.execute(sql`insert into search_outbox (index, record_id)
      select 'images', id from images union all select 'tags', id from tags union all select 'comments', id from comments`);
    await db.insert(images).values({ imageFormat: 'gif', imageMimeType: 'image/gif', isAnimated: true, imageDuration: 2 });
    // apply everything in memory, then die without flushing
    while ((await a.syncBatch()).rows > 0) { /* keep going */ }
    expect(await first.count('images')).toBe(await db.$count(images));
    expect(await pending()).toBeGreaterThan(0);

    const second = new EmbeddedEngine({ dataDir });
    const b = new Indexer({ db, engine: second });
    await b.ensureIndexes();
    expect(await second.count('images')).toBeLessThan(await db.$count(images));
    expect((await b.verify(['images'], { sample: 0 })).ok).toBe(false);
    await b.syncOnce();
    expect(await pending()).toBe(0);
    const report = await b.verify(undefined, { sample: 100 });
    expect(report.indexes.filter((r) => !r.ok)).toEqual([]);
  });
});
