/**
 * The caches' series on `/metrics`: a tag page read twice is one miss then one hit of the rendered
 * tags and of the slugs' ids, and every cache of the read path shows its budget; the embedded
 * search engine's caches are there too, in process and on its thread; a source that fails or
 * answers late does not fail the scrape. And the registry's own rules: one name once, in
 * snake_case.
 */
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import { type CacheSnapshot, CacheRegistry } from '../../src/lib/cache-registry.js';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import { CacheSeries } from '../../src/observability/cache-series.js';
import { EmbeddedEngine, EngineThread } from '../../src/search/embedded/public.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { insertTag, startHarness, type Harness } from './harness.js';

/** The value of the sample `name{labels}` in a Prometheus text exposition; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const want = Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = m[2]!.split(',').sort();
    if (got.length === want.length && got.every((g, i) => g === want[i])) return Number(m[3]);
  }
  return undefined;
}

describe('cache series on /metrics', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await h.request('/healthz');
    // the caches serve only while the change feed listens (from the first request on)
    const feed = recordChangeFeedOf(h.db);
    for (let i = 0; i < 200 && !feed.listening; i++) await new Promise((r) => setTimeout(r, 25));
    if (!feed.listening) throw new Error('the change feed did not start listening');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('counts a miss and then a hit, and shows what each cache holds and may hold', async () => {
    const tag = await insertTag(h.db, 'metric sample');
    // the insert's announcement, heard after the first read, would drop what it kept
    await recordChangeFeedOf(h.db).sync();
    const before = await (await h.request('/metrics')).text();
    expect(sample(before, 'tagwise_cache_hits_total', { cache: 'tag_json' })).toBe(0);
    expect(sample(before, 'tagwise_cache_misses_total', { cache: 'tag_json' })).toBe(0);

    for (let i = 0; i < 2; i++) expect((await h.api(`/tags/${tag.slug}`)).status).toBe(200);

    const res = await h.request('/metrics');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(sample(text, 'tagwise_cache_misses_total', { cache: 'tag_json' })).toBe(1);
    expect(sample(text, 'tagwise_cache_hits_total', { cache: 'tag_json' })).toBe(1);
    expect(sample(text, 'tagwise_cache_misses_total', { cache: 'tag_slugs' })).toBe(1);
    expect(sample(text, 'tagwise_cache_hits_total', { cache: 'tag_slugs' })).toBe(1);
    expect(sample(text, 'tagwise_cache_entries', { cache: 'tag_json' })).toBe(1);
    expect(sample(text, 'tagwise_cache_bytes', { cache: 'tag_json' })).toBeGreaterThan(0);
    expect(sample(text, 'tagwise_cache_budget', { cache: 'tag_json', unit: 'bytes' })).toBe(32 * 1024 * 1024);
    expect(text).toContain('# TYPE tagwise_cache_hits_total counter');
    for (const cache of ['image_json', 'image_answers', 'comment_json', 'featured_image', 'hidden_image_ids', 'filter_rows', 'api_keys', 'bans']) {
      expect(sample(text, 'tagwise_cache_entries', { cache }), cache).toBeGreaterThanOrEqual(0);
    }
    // caches of which the process holds one
    for (const cache of ['etag_of_source', 'query_params', 'search_params']) {
      expect(sample(text, 'tagwise_cache_budget', { cache, unit: 'entries' }), cache).toBeGreaterThan(0);
    }
  });
});

describe.each([
  ['in process', () => new EmbeddedEngine()],
  ['on its thread', () => new EngineThread()],
] as const)("the search engine's caches on /metrics (%s)", (_mode, makeEngine) => {
  let h: Harness;
  let engine: SearchEngine;
  beforeAll(async () => {
    engine = makeEngine();
    h = await startHarness({ engine });
    await new Indexer({ db: h.db, engine }).ensureIndexes();
  });
  afterAll(async () => {
    await h?.close();
    await engine?.close();
  });

  it('counts the second of two same searches as a hit of the kept answers', async () => {
    const search = async () => expect((await h.api('/search/images?q=*')).status).toBe(200);
    await search();
    const once = await (await h.request('/metrics')).text();
    await search();
    const twice = await (await h.request('/metrics')).text();
    const hits = (text: string) => sample(text, 'tagwise_cache_hits_total', { cache: 'engine_answers' });
    expect(hits(once)).toBeTypeOf('number');
    expect(hits(twice)).toBeGreaterThan(hits(once)!);
    expect(sample(twice, 'tagwise_cache_misses_total', { cache: 'engine_answers' })).toBeGreaterThanOrEqual(1);
    expect(sample(twice, 'tagwise_cache_entries', { cache: 'engine_answers' })).toBeGreaterThanOrEqual(1);
    for (const cache of ['engine_answers', 'engine_filter_sets', 'engine_term_unions']) {
      expect(sample(twice, 'tagwise_cache_budget', { cache, unit: 'entries' }), cache).toBeGreaterThan(0);
    }
    // the thread parses the requests it is sent; in process nothing is parsed
    expect(sample(twice, 'tagwise_cache_budget', { cache: 'engine_parsed_requests', unit: 'entries' })).toBe(engine instanceof EngineThread ? 4_096 : undefined);
  });
});

describe('CacheSeries', () => {
  const snapshot: CacheSnapshot = { name: 'later_cache', budget: { entries: 5 }, entries: 2, hits: 3, misses: 4 };

  it("reads a source that answers later once per scrape, and leaves out one that fails, not the others' series", async () => {
    const registry = new Registry();
    const series = new CacheSeries(registry);
    let reads = 0;
    series.watch({
      report: () => {
        reads++;
        return new Promise((resolve) => setTimeout(() => resolve([snapshot]), 10));
      },
    });
    series.watch({
      report: () => {
        throw new Error('gone');
      },
    });
    series.watch({ report: () => Promise.reject(new Error('stopped')) });
    const text = await registry.metrics();
    expect(sample(text, 'tagwise_cache_hits_total', { cache: 'later_cache' })).toBe(3);
    expect(sample(text, 'tagwise_cache_misses_total', { cache: 'later_cache' })).toBe(4);
    expect(sample(text, 'tagwise_cache_entries', { cache: 'later_cache' })).toBe(2);
    expect(sample(text, 'tagwise_cache_budget', { cache: 'later_cache', unit: 'entries' })).toBe(5);
    // asked by each of the five series: a source keeps its own call under way (`EngineThread.caches`)
    expect(reads).toBe(5);
  });
});

describe('CacheRegistry', () => {
  const spec = { name: 'some_cache', budget: { entries: 1 }, invalidatedBy: ['*'], held: () => ({ entries: 0 }) };

  it('refuses a name twice, and a name that is not snake_case', () => {
    const registry = new CacheRegistry();
    registry.register(spec);
    expect(() => registry.register(spec)).toThrow(/registered already/);
    expect(() => registry.register({ ...spec, name: 'Some Cache' })).toThrow(/snake_case/);
    expect(registry.list().map((c) => c.name)).toEqual(['some_cache']);
  });
});

describe('CacheRegistry.report', () => {
  it('gives each cache as plain data, a budget that grows with what holds it read then', () => {
    const registry = new CacheRegistry();
    let holders = 1;
    const counts = registry.register({ name: 'per_holder', budget: () => ({ entries: 10 * holders }), invalidatedBy: [], held: () => ({ entries: 3, bytes: 40 }) });
    counts.hit();
    counts.miss(2);
    holders = 2;
    expect(registry.report()).toEqual([{ name: 'per_holder', budget: { entries: 20 }, entries: 3, bytes: 40, hits: 1, misses: 2 }]);
  });
});
