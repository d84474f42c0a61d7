/**
 * The embedded engine's caches in its own registry (`EmbeddedEngine.caches`): kept answers, and
 * the filter sets and term unions that each index holds, counted and summed over every index of
 * the engine (a reindex's new version and a snapshot's loaded one included) and of no other
 * engine; on its thread, the same and the requests it parsed, sent back when asked, one call
 * for the reads made while it is under way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Query } from '../../grammar/index.js';
import type { CacheSnapshot } from '../../src/lib/cache-registry.js';
import { EmbeddedEngine, EngineThread } from '../../src/search/embedded/public.js';
import type { IndexMapping } from '../../src/search/mapping.js';
import type { SearchRequest } from '../../src/search/engine.js';

/** Three fields whose unions are kept (two keyword, one of them nested, and a text field); a boolean's are not. */
const mapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'integer' },
    score: { type: 'integer' },
    tags: { type: 'keyword' },
    hidden: { type: 'boolean' },
    description: { type: 'text' },
    galleries: { type: 'nested', properties: { name: { type: 'keyword' } } },
  },
};
const UNION_FIELDS = 3;

const docs = Array.from({ length: 40 }, (_, i) => ({ id: i + 1, score: i, tags: [i % 2 ? 'cat' : 'canary', `t${i}`], hidden: false, description: 'a cat', galleries: [] }));
const q = (x: unknown) => x as Query;
const range: SearchRequest = { query: q({ range: { score: { gte: 10 } } }), size: 5 };
const wildcard: SearchRequest = { query: q({ wildcard: { tags: 'ca*' } }), size: 5 };

/** The reported cache of that name. */
function cache(report: readonly CacheSnapshot[], name: string): CacheSnapshot {
  const found = report.find((c) => c.name === name);
  if (!found) throw new Error(`no cache ${name} in ${JSON.stringify(report.map((c) => c.name))}`);
  return found;
}

const dirs: string[] = [];
const threads: EngineThread[] = [];
afterAll(async () => {
  await Promise.allSettled(threads.map((t) => t.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('EmbeddedEngine.caches', () => {
  it('counts a kept answer found as a hit, and reports what it holds and may hold', async () => {
    const engine = new EmbeddedEngine({ resultCache: { maxEntries: 100 } });
    await engine.ensureIndex({ name: 'images', mapping });
    await engine.write('images', docs);
    await engine.search('images', range);
    await engine.search('images', range);
    expect(cache(engine.caches.report(), 'engine_answers')).toEqual({ name: 'engine_answers', budget: { entries: 100 }, entries: 1, hits: 1, misses: 1 });
  });

  it('counts the filter sets and term unions of every index, and sums their budgets over them', async () => {
    // no kept answers: every search runs its query, and meets the sets and unions
    const engine = new EmbeddedEngine({ resultCache: false });
    for (const name of ['images', 'tags']) {
      await engine.ensureIndex({ name, mapping });
      await engine.write(name, docs);
    }
    const before = engine.caches.report();
    expect(cache(before, 'engine_filter_sets')).toMatchObject({ budget: { entries: 2 * 32 }, entries: 0, hits: 0, misses: 0 });
    expect(cache(before, 'engine_term_unions')).toMatchObject({ budget: { entries: 2 * UNION_FIELDS * 64 }, entries: 0, hits: 0, misses: 0 });

    for (const name of ['images', 'tags', 'images']) {
      expect((await engine.search(name, range)).total).toBe(30);
      expect((await engine.search(name, wildcard)).total).toBe(40);
    }
    const after = engine.caches.report();
    expect(cache(after, 'engine_filter_sets')).toMatchObject({ entries: 2, hits: 1, misses: 2 });
    expect(cache(after, 'engine_term_unions')).toMatchObject({ entries: 2, hits: 1, misses: 2 });
  });

  it("keeps counting over a reindex's new version, and counts nothing of another engine", async () => {
    const engine = new EmbeddedEngine({ resultCache: false });
    const other = new EmbeddedEngine({ resultCache: false });
    for (const e of [engine, other]) {
      await e.ensureIndex({ name: 'images', mapping });
      await e.write('images', docs);
    }
    await engine.search('images', range);
    await engine.search('images', range);
    const version = await engine.createVersion({ name: 'images', mapping });
    await engine.write(version, docs);
    await engine.switchAlias('images', version);
    await engine.search('images', range);
    await engine.search('images', range);
    await other.search('images', range);
    // the old version's set went with it; its hit and miss stay counted
    expect(cache(engine.caches.report(), 'engine_filter_sets')).toMatchObject({ budget: { entries: 32 }, entries: 1, hits: 2, misses: 2 });
    expect(cache(other.caches.report(), 'engine_filter_sets')).toMatchObject({ entries: 1, hits: 0, misses: 1 });
  });

  it('counts the caches of an index loaded from its snapshot', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-engine-caches-'));
    dirs.push(dataDir);
    const first = new EmbeddedEngine({ dataDir });
    await first.ensureIndex({ name: 'images', mapping });
    await first.write('images', docs);
    await first.close();
    const loaded = new EmbeddedEngine({ dataDir, resultCache: false });
    await loaded.search('images', wildcard);
    await loaded.search('images', wildcard);
    expect(cache(loaded.caches.report(), 'engine_term_unions')).toMatchObject({ budget: { entries: UNION_FIELDS * 64 }, entries: 1, hits: 1, misses: 1 });
  });
});

describe('EngineThread.caches', () => {
  it("reports the thread's caches, the requests it parsed among them, one call for the reads made while it is under way", async () => {
    const engine = new EngineThread();
    threads.push(engine);
    await engine.ensureIndex({ name: 'images', mapping });
    await engine.write('images', docs);
    await engine.search('images', range);
    await engine.search('images', range);

    const reading = engine.caches.report();
    expect(engine.caches.report()).toBe(reading);
    const report = await reading;
    expect(cache(report, 'engine_answers')).toMatchObject({ entries: 1, hits: 1, misses: 1 });
    expect(cache(report, 'engine_parsed_requests')).toMatchObject({ budget: { entries: 4_096 }, entries: 1, hits: 1, misses: 1 });
    expect(report.map((c) => c.name).sort()).toEqual(['engine_answers', 'engine_filter_sets', 'engine_parsed_requests', 'engine_term_unions']);

    // asked after it answered: a new call, which sees the searches made since
    await engine.search('images', range);
    const next = engine.caches.report();
    expect(next).not.toBe(reading);
    expect(cache(await next, 'engine_answers').hits).toBe(2);
  });

  it('reports the caches as the calls made before the report left them', async () => {
    const engine = new EngineThread();
    threads.push(engine);
    await engine.ensureIndex({ name: 'images', mapping });
    void engine.write('images', docs);
    void engine.search('images', wildcard);
    void engine.search('images', wildcard);
    expect(cache(await engine.caches.report(), 'engine_answers')).toMatchObject({ hits: 1, misses: 1 });
  });
});
