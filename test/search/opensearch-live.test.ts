/**
 * The OpenSearch engine against a real node: runs only when OPENSEARCH_URL is set (e.g.
 * `docker compose up opensearch` then `OPENSEARCH_URL=http://localhost:9200 npx vitest run
 * test/search/opensearch-live.test.ts`). Every index it creates carries a unique prefix and is
 * deleted at the end.
 */
import { Client } from '@opensearch-project/opensearch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IndexDocument, IndexSpec, SearchRequest } from '../../src/search/engine.js';
import type { IndexMapping } from '../../src/search/mapping.js';
import { BulkWriteError, OpenSearchEngine, type OpenSearchEngineOptions } from '../../src/search/opensearch/index.js';
import { assertValidSearchBody } from '../support/dsl-schema.js';
import { deleteIndices } from '../support/opensearch.js';
import { runEngineConformance } from './conformance.js';

const url = process.env.OPENSEARCH_URL;
const prefix = `tagwise_test_${process.pid}_${Date.now().toString(36)}_`;

const mapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'integer' },
    score: { type: 'integer' },
    tags: { type: 'keyword' },
    created_at: { type: 'date' },
    description: { type: 'text', analyzer: 'snowball' },
    galleries: { type: 'nested', properties: { id: { type: 'integer' }, position: { type: 'integer' } } },
  },
};
const spec: IndexSpec = { name: 'images', mapping };

const corpus: IndexDocument[] = [
  { id: 1, score: 10, tags: ['safe', 'solo', 'pony'], created_at: '2024-01-01T00:00:00Z', description: 'a pony running', galleries: [{ id: 1, position: 0 }] },
  { id: 2, score: 50, tags: ['safe', 'duo'], created_at: '2024-02-01T00:00:00Z', description: 'two friends', galleries: [{ id: 1, position: 1 }, { id: 2, position: 0 }] },
  { id: 3, score: -5, tags: ['explicit', 'solo'], created_at: '2024-03-01T00:00:00Z', description: null, galleries: [] },
  { id: 4, score: 100, tags: ['safe', 'blue eyes'], created_at: '2024-04-01T00:00:00Z', description: 'blue', galleries: [{ id: 2, position: 1 }] },
  { id: 5, score: 0, tags: ['suggestive', 'solo', 'blue mane'], created_at: '2024-05-01T00:00:00Z', description: 'ponies run', galleries: [] },
  { id: 6, score: 7, tags: ['safe'], created_at: '2024-06-01T00:00:00Z', description: 'sky', galleries: [] },
];

const engines: OpenSearchEngine[] = [];
function makeEngine(options: Partial<OpenSearchEngineOptions> = {}): OpenSearchEngine {
  const engine = new OpenSearchEngine({ node: url!, indexPrefix: prefix, waitForRefresh: true, ...options });
  engines.push(engine);
  return engine;
}

const byId = [{ id: 'asc' as const }];
const random = (seed: number, query: SearchRequest['query'] = { match_all: {} }): SearchRequest['query'] => ({
  function_score: { query, functions: [{ random_score: { seed, field: 'id' } }], boost_mode: 'replace' },
});
const randomSort: SearchRequest['sort'] = [{ _score: 'desc' }, { id: 'desc' }];

describe.skipIf(!url)('OpenSearch engine against a live node', () => {
  let admin: Client;
  let engine: OpenSearchEngine;

  beforeAll(async () => {
    admin = new Client({ node: url! });
    engine = makeEngine();
    await engine.ensureIndex(spec);
    await engine.write('images', corpus);
  });

  afterAll(async () => {
    for (const e of engines.splice(0)) await e.close();
    await deleteIndices(url!, prefix);
    await admin.close();
  });

  const ids = async (query: SearchRequest['query'], extra: Partial<SearchRequest> = {}) => {
    const request: SearchRequest = { query, sort: byId, size: 100, ...extra };
    assertValidSearchBody({ ...request, _source: false, track_total_hits: true });
    return (await engine.search('images', request)).ids;
  };

  it('created a versioned index behind the alias with our settings', async () => {
    const alias = await admin.indices.getAlias({ name: `${prefix}images` });
    expect(Object.keys(alias.body)).toEqual([`${prefix}images_v1`]);
    const settings = await admin.indices.getSettings({ index: `${prefix}images_v1`, flat_settings: true });
    const s = (settings.body[`${prefix}images_v1`] as { settings: Record<string, string> }).settings;
    expect(s['index.max_result_window']).toBe('10000000');
    expect(s['index.refresh_interval']).toBe('1s');
    expect(s['index.number_of_shards']).toBe('1');
  });

  it('counts and gets documents as stored', async () => {
    expect(await engine.count('images')).toBe(6);
    const got = await engine.get('images', [2, 5, 999]);
    expect([...got.keys()].sort()).toEqual([2, 5]);
    expect(got.get(2)).toEqual(corpus[1]);
  });

  it('term, terms, range, wildcard, exists', async () => {
    expect(await ids({ term: { tags: 'safe' } })).toEqual([1, 2, 4, 6]);
    expect(await ids({ terms: { tags: ['duo', 'explicit'] } })).toEqual([2, 3]);
    expect(await ids({ range: { score: { gte: 10 } } })).toEqual([1, 2, 4]);
    expect(await ids({ range: { created_at: { gte: '2024-03-01T00:00:00Z', lt: '2024-05-01T00:00:00Z' } } })).toEqual([3, 4]);
    expect(await ids({ wildcard: { tags: { value: 'blue*' } } })).toEqual([4, 5]);
    expect(await ids({ exists: { field: 'description' } })).toEqual([1, 2, 4, 5, 6]);
  });

  it('bool and nested', async () => {
    expect(await ids({ bool: { must: [{ term: { tags: 'solo' } }], must_not: { term: { tags: 'explicit' } } } })).toEqual([1, 5]);
    expect(await ids({ bool: { should: [{ term: { tags: 'duo' } }, { term: { tags: 'explicit' } }] } })).toEqual([2, 3]);
    expect(await ids({ bool: { must_not: [{ term: { tags: 'safe' } }] } })).toEqual([3, 5]);
    expect(await ids({ nested: { path: 'galleries', query: { term: { 'galleries.id': 2 } } } })).toEqual([2, 4]);
    expect(await ids({ match_phrase: { description: 'running' } })).toEqual([1, 5]);
  });

  it('sorts, pages and counts exactly', async () => {
    const request: SearchRequest = { query: { match_all: {} }, sort: [{ score: 'desc' }, { id: 'desc' }], from: 1, size: 2 };
    expect(await engine.search('images', request)).toEqual({ ids: [2, 1], total: 6 });
    expect(await engine.search('images', { ...request, from: 10 })).toEqual({ ids: [], total: 6 });
  });

  it('random order is a stable permutation per seed, page after page', async () => {
    const full = await engine.search('images', { query: random(42), sort: randomSort, size: 10 });
    expect([...full.ids].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    const again = await engine.search('images', { query: random(42), sort: randomSort, size: 10 });
    expect(again.ids).toEqual(full.ids);
    const pages: number[] = [];
    for (let from = 0; from < 6; from += 4) {
      pages.push(...(await engine.search('images', { query: random(42), sort: randomSort, from, size: 4 })).ids);
    }
    expect(pages).toEqual(full.ids);
  });

  it('reports documents the mapping rejects, and writes the others', async () => {
    const bad = { id: 50, score: 'lots', tags: ['safe'] } as unknown as IndexDocument;
    const error = await engine.write('images', [bad, { id: 51, score: 1, tags: ['safe'] }]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BulkWriteError);
    expect((error as BulkWriteError).failures).toMatchObject([{ id: '50', status: 400, type: 'mapper_parsing_exception' }]);
    expect((await engine.get('images', [51])).has(51)).toBe(true);
    await engine.remove('images', [51, 52]);
    expect(await engine.count('images')).toBe(6);
  });

  it('refuses to write through an alias that does not exist', async () => {
    await expect(engine.write('nothing', corpus.slice(0, 1))).rejects.toThrow(/index_not_found_exception/);
    const exists = await admin.indices.exists({ index: `${prefix}nothing` });
    expect(exists.body).toBe(false);
  });

  it('pages past a small result window with search_after, also in random order', async () => {
    const deep = makeEngine({ maxResultWindow: 3, deepPagingStep: 2 });
    await deep.ensureIndex({ name: 'deep', mapping });
    await deep.write('deep', corpus);
    expect(await deep.search('deep', { query: { match_all: {} }, sort: byId, from: 4, size: 2 })).toEqual({
      ids: [5, 6],
      total: 6,
    });
    expect(await deep.search('deep', { query: { match_all: {} }, sort: byId, from: 2, size: 3 })).toEqual({
      ids: [3, 4, 5],
      total: 6,
    });
    const pages: number[] = [];
    for (let from = 0; from < 6; from += 2) {
      pages.push(...(await deep.search('deep', { query: random(7), sort: randomSort, from, size: 2 })).ids);
    }
    expect([...pages].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    expect((await deep.search('deep', { query: random(7), sort: randomSort, from: 4, size: 2 })).ids).toEqual(pages.slice(4));
  });

  it('switches the alias to a new version while searches run, each seeing one version whole', async () => {
    const before = await ids({ match_all: {} });
    const version = await engine.createVersion(spec);
    expect(version).toBe('images_v2');
    const next = corpus.map((d) => ({ ...d, id: d.id + 100 }));
    await engine.write(version, next);
    const after = next.map((d) => d.id);

    let done = false;
    const seen: number[][] = [];
    const searcher = async () => {
      while (!done) seen.push((await engine.search('images', { query: { match_all: {} }, sort: byId, size: 100 })).ids);
    };
    const searchers = [searcher(), searcher(), searcher()];
    await new Promise((r) => setTimeout(r, 100));
    await engine.switchAlias('images', version);
    await new Promise((r) => setTimeout(r, 100));
    done = true;
    await Promise.all(searchers);

    expect(seen.length).toBeGreaterThan(3);
    for (const result of seen) expect([before, after]).toContainEqual(result);
    expect(seen.at(-1)).toEqual(after);
    expect(await ids({ match_all: {} })).toEqual(after);
    const old = await admin.indices.exists({ index: `${prefix}images_v1` });
    expect(old.body).toBe(false);
    const settings = await admin.indices.getSettings({ index: `${prefix}images_v2`, flat_settings: true });
    expect((settings.body[`${prefix}images_v2`] as { settings: Record<string, string> }).settings['index.refresh_interval']).toBe('1s');
  });

  it('answers a repeated search from the shard request cache, and a write makes it ask the index again', async () => {
    type CacheStats = { hit_count: number; miss_count: number };
    // a shard just started may not report its request cache yet: asked again until it does
    const hitsOf = async (): Promise<CacheStats> => {
      for (let attempt = 0; ; attempt++) {
        const stats = await admin.indices.stats({ index: `${prefix}images`, metric: 'request_cache' });
        const cache = (stats.body as { _all?: { total?: { request_cache?: CacheStats } } })._all?.total?.request_cache;
        if (cache || attempt === 50) return cache ?? { hit_count: Number.NaN, miss_count: Number.NaN };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };
    const request: SearchRequest = { query: { term: { tags: 'solo' } }, sort: byId, size: 3 };
    const first = await engine.search('images', request);
    const before = await hitsOf();
    expect(await engine.search('images', request)).toEqual(first);
    const after = await hitsOf();
    expect(after.hit_count).toBe(before.hit_count + 1);
    // a new document the query matches: the refresh drops the cached answer, never serving it stale
    await engine.write('images', [{ ...corpus[0]!, id: 500 }]);
    const fresh = await engine.search('images', { ...request, size: 10 });
    expect(fresh.ids).toContain(500);
    expect(await engine.search('images', request)).toEqual({ ids: first.ids, total: first.total + 1 });
    await engine.remove('images', [500]);
    // a random order with a drawn seed (one-off) is not cached
    const oneOff = await hitsOf();
    await engine.search('images', { query: random(7), sort: randomSort, size: 3, oneOff: true });
    await engine.search('images', { query: random(7), sort: randomSort, size: 3, oneOff: true });
    expect((await hitsOf()).hit_count).toBe(oneOff.hit_count);
  });

  it('merges a freshly loaded version to one segment before it goes live, writing its batches side by side', async () => {
    const loader = makeEngine({ indexPrefix: `${prefix}merge_`, bulkMaxDocs: 7, bulkConcurrency: 3, waitForRefresh: false });
    await loader.ensureIndex(spec);
    const version = await loader.createVersion(spec);
    // many small requests, several in flight: every document arrives
    for (let batch = 0; batch < 4; batch++) {
      await loader.write(version, Array.from({ length: 50 }, (_, i) => ({ ...corpus[i % corpus.length]!, id: batch * 50 + i + 1 })));
      // each batch ends up in a segment of its own before the merge
      await admin.indices.flush({ index: `${prefix}merge_${version}` });
    }
    await loader.switchAlias('images', version);
    const segments = await admin.cat.segments({ index: `${prefix}merge_images`, format: 'json' });
    expect((segments.body as unknown[]).length).toBe(1);
    expect(await loader.count('images')).toBe(200);
  });

  runEngineConformance('OpenSearch engine', async () => makeEngine());
});
