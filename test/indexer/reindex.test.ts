/**
 * Full reindex: a new version is built while searches keep running against the old one, changes
 * made during the build reach the new version, and the alias switch is atomic. Also status.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer, type ReindexProgress } from '../../indexer/index.js';
import { REINDEX_LOCK } from '../../indexer/locks.js';
import { images, imageTaggings, searchOutbox, tags } from '../../src/db/schema/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { bulkBoard } from './fixtures.js';
import { eventually, reindexUnderSearch } from './helpers.js';

const IMAGES = 5000;

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await bulkBoard(t.db, { images: IMAGES });
});
afterAll(async () => {
  await t?.drop();
});

describe('reindex', () => {
  it('builds every index, reports progress, and then verifies clean', async () => {
    const engine = new EmbeddedEngine();
    const indexer = new Indexer({ db: t.db, engine });
    await indexer.ensureIndexes();
    const progress: ReindexProgress[] = [];
    const results = await indexer.reindex(undefined, { onProgress: (p) => progress.push(p) });
    expect(results.map((r) => r.index)).toEqual(['images', 'comments', 'posts', 'galleries', 'tags', 'filters']);
    const img = results[0]!;
    expect(img.docs).toBe(IMAGES);
    expect(img.version).toBe('images_v2');
    console.log(`reindex images: ${img.docs} docs in ${img.seconds.toFixed(2)} s = ${img.docsPerSecond} docs/s`);
    const last = progress.filter((p) => p.index === 'images').at(-1)!;
    expect(last).toMatchObject({ phase: 'done', done: IMAGES, total: IMAGES });
    expect(progress.some((p) => p.phase === 'loading' && p.done > 0 && p.done < IMAGES)).toBe(true);

    const report = await indexer.verify(undefined, { sample: 300 });
    expect(report.indexes.filter((r) => !r.ok)).toEqual([]);
    expect(await engine.search('images', { query: { term: { tags: 'bulk alias 25' } }, size: 0 })).toMatchObject({
      total: await t.db.$count(imageTaggings, eq(imageTaggings.tagId, (await t.db.select().from(tags).where(eq(tags.name, 'bulk tag 25')))[0]!.id)),
    });
  });

  it('searches never fail during a reindex, and changes made meanwhile reach the new version', async () => {
    const engine = new EmbeddedEngine();
    const indexer = new Indexer({ db: t.db, engine, pollMs: 100, deleteRows: 'immediate' });
    await indexer.ensureIndexes();
    await indexer.reindex(['images']);
    indexer.start();
    try {
      const { results, searches, failures, wrongTotals, changed, added } = await reindexUnderSearch(t.db, indexer, engine, 2000);
      expect(results[0]!.version).toBe('images_v3');
      expect(failures).toBe(0);
      expect(wrongTotals).toBe(0);
      expect(searches).toBeGreaterThan(0);
      await eventually(async () => {
        expect((await engine.search('images', { query: { term: { score: 9999 } } })).ids).toEqual([changed]);
        expect((await engine.search('images', { query: { term: { score: 8888 } } })).ids).toEqual([added]);
      });
      await eventually(async () => expect(await t.db.$count(searchOutbox)).toBe(0));
      const report = await indexer.verify(['images'], { sample: 100 });
      expect(report.ok).toBe(true);
    } finally {
      await indexer.stop();
    }
  });

  it('while another process reindexes, outbox rows wait and are applied after its switch', async () => {
    const engine = new EmbeddedEngine();
    const indexer = new Indexer({ db: t.db, engine, deleteRows: 'immediate' });
    await indexer.ensureIndexes();
    await indexer.reindex(['images']);
    await indexer.syncOnce();
    // another process holds the reindex lock
    const session = await t.db.$client.reserve();
    let newId: number;
    try {
      await session.unsafe('select pg_advisory_lock($1::bigint)', [REINDEX_LOCK]);
      const [img] = await t.db.insert(images).values({ imageFormat: 'png', imageMimeType: 'image/png', score: 7777 }).returning();
      newId = img!.id;
      expect(await indexer.syncBatch()).toMatchObject({ rows: 0, paused: true });
      expect(await indexer.syncOnce()).toBe(0);
      expect(await t.db.$count(searchOutbox)).toBeGreaterThan(0);
      // and a second reindex refuses to run beside it
      await expect(indexer.reindex(['tags'])).rejects.toThrow('another reindex is running');
    } finally {
      await session.unsafe('select pg_advisory_unlock($1::bigint)', [REINDEX_LOCK]);
      session.release();
    }
    expect(await indexer.syncOnce()).toBeGreaterThan(0);
    expect((await engine.search('images', { query: { term: { score: 7777 } } })).ids).toEqual([newId]);
    expect(await t.db.$count(searchOutbox)).toBe(0);
  });

  it("waits for a batch's hold of the lock, whatever another board on the same cluster reindexes", async () => {
    const other = await createTestDatabase();
    const otherReindex = await other.db.$client.reserve();
    const batch = await t.db.$client.reserve();
    try {
      // pg_locks shows every database's advisory locks: another board's reindex holds the same key
      await otherReindex.unsafe('select pg_advisory_lock($1::bigint)', [REINDEX_LOCK]);
      // a batch of this board holds it shared for a moment
      await batch.unsafe('select pg_advisory_lock_shared($1::bigint)', [REINDEX_LOCK]);
      const indexer = new Indexer({ db: t.db, engine: new EmbeddedEngine(), deleteRows: 'immediate' });
      await indexer.ensureIndexes();
      let done = false;
      const reindexing = indexer.reindex(['tags']).then((r) => ((done = true), r));
      await new Promise((r) => setTimeout(r, 300));
      expect(done).toBe(false);
      await batch.unsafe('select pg_advisory_unlock_shared($1::bigint)', [REINDEX_LOCK]);
      expect(await reindexing).toHaveLength(1);
    } finally {
      batch.release();
      otherReindex.release();
      await other.drop();
    }
  });

  it('reports rows, documents and outbox lag', async () => {
    const engine = new EmbeddedEngine();
    const indexer = new Indexer({ db: t.db, engine, deleteRows: 'immediate' });
    await indexer.ensureIndexes(['images']);
    await t.db.insert(searchOutbox).values([
      { index: 'images', recordId: 1, createdAt: new Date(Date.now() - 60_000) },
      { index: 'user', recordId: 1 },
    ]);
    const status = await indexer.status();
    const rows = await t.db.$count(images);
    expect(status.engine).toBe('embedded');
    expect(status.indexes[0]).toEqual({ index: 'images', rows, docs: 0 });
    expect(status.indexes.find((s) => s.index === 'filters')).toEqual({ index: 'filters', rows: 0, docs: null });
    expect(status.outbox.pending).toBe(2);
    expect(status.outbox.byKind).toEqual({ images: 1, user: 1 });
    expect(status.outbox.oldestAgeSeconds).toBeGreaterThanOrEqual(59);
    expect(status.outbox.oldestAgeSeconds).toBeLessThan(120);

    await indexer.repairIndexes();
    const after = await indexer.status();
    expect(after.indexes.find((s) => s.index === 'images')).toEqual({ index: 'images', rows, docs: rows });
    expect(after.outbox).toEqual({ pending: 0, oldestAgeSeconds: null, byKind: {} });
  });
});
