/**
 * The caches' series on `/metrics`: a tag page read twice is one miss then one hit of the rendered
 * tags and of the slugs' ids, and every cache of the read path shows its budget. And the
 * registry's own rules: one name once, in snake_case.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CacheRegistry } from '../../src/caches/registry.js';
import { changeFeedOf } from '../../src/db/change-feed.js';
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
    const feed = changeFeedOf(h.db);
    for (let i = 0; i < 200 && !feed.live; i++) await new Promise((r) => setTimeout(r, 25));
    if (!feed.live) throw new Error('the change feed did not start listening');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('counts a miss and then a hit, and shows what each cache holds and may hold', async () => {
    const tag = await insertTag(h.db, 'metric sample');
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
