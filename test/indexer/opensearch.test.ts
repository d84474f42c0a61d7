/**
 * The indexer on a real OpenSearch node: a full reindex of every index verifies clean, a reindex
 * with an alias swap while searches run never fails a search nor loses a change made meanwhile,
 * and the outbox follower brings inserts, updates and deletions to search. Runs only when
 * OPENSEARCH_URL is set (`npm run opensearch`); every index carries a unique prefix and is deleted.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import { images, imageTaggings, searchOutbox, tags } from '../../src/db/schema/index.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { deleteIndices } from '../support/opensearch.js';
import { bulkBoard } from './fixtures.js';
import { eventually, reindexUnderSearch } from './helpers.js';

const url = process.env.OPENSEARCH_URL;
const prefix = `tagwise_indexer_${process.pid}_${Date.now().toString(36)}_`;
const IMAGES = 3000;
const png = { imageFormat: 'png', imageMimeType: 'image/png' } as const;

describe.skipIf(!url)('the indexer on a live OpenSearch node', () => {
  let t: TestDatabase;
  let engine: OpenSearchEngine;
  let indexer: Indexer;

  beforeAll(async () => {
    t = await createTestDatabase();
    await bulkBoard(t.db, { images: IMAGES });
    engine = new OpenSearchEngine({ node: url!, indexPrefix: prefix });
    indexer = new Indexer({ db: t.db, engine, pollMs: 100 });
    await indexer.ensureIndexes();
  }, 120_000);

  afterAll(async () => {
    await indexer?.stop();
    await engine?.close();
    await t?.drop();
    await deleteIndices(url!, prefix);
  });

  it('reindexes every index and then verifies clean', async () => {
    const results = await indexer.reindex();
    expect(results.map((r) => r.index)).toEqual(['images', 'comments', 'posts', 'galleries', 'tags', 'filters']);
    expect(results[0]).toMatchObject({ docs: IMAGES, version: 'images_v2' });
    console.log(`OpenSearch reindex images: ${results[0]!.docs} docs in ${results[0]!.seconds.toFixed(2)} s = ${results[0]!.docsPerSecond} docs/s`);
    expect(await engine.count('images')).toBe(IMAGES);
    const report = await indexer.verify(undefined, { sample: 300 });
    expect(report.indexes.filter((r) => !r.ok)).toEqual([]);
    // written newest first: in the index's own order the ids descend, but where requests written
    // side by side interleave (each write thread fills a segment of its own) or a merge put one
    // segment after another; written oldest first nearly every id would rise
    const inIndexOrder = await engine.client.search({
      index: `${prefix}images`,
      body: { query: { match_all: {} }, sort: ['_doc'], size: IMAGES, _source: false },
    });
    const ids = (inIndexOrder.body.hits.hits as { _id: string }[]).map((h) => Number(h._id));
    expect(ids).toHaveLength(IMAGES);
    const rises = ids.filter((id, i) => i > 0 && id > ids[i - 1]!).length;
    expect(rises).toBeLessThan(IMAGES / 10);
  }, 300_000);

  it('swaps the alias under running searches, keeping changes made during the build', async () => {
    indexer.start();
    try {
      const { results, searches, failures, wrongTotals, changed, added } = await reindexUnderSearch(t.db, indexer, engine, 1500);
      expect(results[0]!.version).toBe('images_v3');
      expect(failures).toBe(0);
      expect(wrongTotals).toBe(0);
      expect(searches).toBeGreaterThan(10);
      await eventually(async () => {
        expect((await engine.search('images', { query: { term: { score: 9999 } } })).ids).toEqual([changed]);
        expect((await engine.search('images', { query: { term: { score: 8888 } } })).ids).toEqual([added]);
      }, 10_000, 100);
      await eventually(async () => expect(await t.db.$count(searchOutbox)).toBe(0), 10_000, 100);
      const old = await engine.client.indices.exists({ index: `${prefix}images_v2` });
      expect(old.body).toBe(false);
      const report = await indexer.verify(['images'], { sample: 200 });
      expect(report.ok).toBe(true);
    } finally {
      await indexer.stop();
    }
  }, 300_000);

  it('follows the outbox: an insert, its tagging, an update and a deletion reach search', async () => {
    indexer.start();
    try {
      const hits = async (query: object) =>
        (await engine.search('images', { query: query as never, sort: [{ id: { order: 'asc' } }], size: 100 })).ids;
      const [img] = await t.db.insert(images).values({ ...png, score: 4242 }).returning();
      const id = img!.id;
      await eventually(async () => expect(await hits({ term: { score: 4242 } })).toEqual([id]), 10_000, 100);

      await t.db.update(images).set({ description: 'a lovely sunset' }).where(eq(images.id, id));
      await eventually(async () => expect(await hits({ match_phrase: { description: 'lovely sunset' } })).toEqual([id]), 10_000, 100);

      const [tag] = await t.db.insert(tags).values({ name: 'live sunset', slug: 'live+sunset', nameInNamespace: 'live sunset' }).returning();
      await t.db.insert(imageTaggings).values({ imageId: id, tagId: tag!.id });
      await eventually(async () => expect(await hits({ term: { tags: 'live sunset' } })).toEqual([id]), 10_000, 100);

      await t.db.delete(images).where(eq(images.id, id));
      await eventually(async () => expect((await engine.get('images', [id])).has(id)).toBe(false), 10_000, 100);
      await eventually(async () => expect(await t.db.$count(searchOutbox)).toBe(0), 10_000, 100);
      // Searches see a deletion after the next refresh (1 s), so verify is clean within one.
      await eventually(async () => {
        const report = await indexer.verify(undefined, { sample: 200 });
        expect(report.indexes.filter((r) => !r.ok)).toEqual([]);
      }, 5_000, 250);
    } finally {
      await indexer.stop();
    }
  }, 120_000);
});
