/** The per-process cache of compiled queries: reuse within a second, then compile again; throws are not kept. */
import { describe, expect, it } from 'vitest';
import { compileQuery } from '../../grammar/compiler.js';
import { ClockReading, CompiledCache, MAX_COMPILED_ENTRIES } from '../../src/contexts/search/compiled-cache.js';
import { CacheRegistry, processCaches } from '../../src/lib/cache-registry.js';
import { queryFields } from '../../src/search/indexes/index.js';

describe('CompiledCache', () => {
  it('compiles a key once within a second, and again after', () => {
    let now = 1_000;
    const cache = new CompiledCache<{ n: number }>('test', { registry: new CacheRegistry(), now: () => now });
    let compiled = 0;
    const compile = () => ({ n: ++compiled });
    const first = cache.get('images\u0000safe', compile);
    expect(cache.get('images\u0000safe', compile)).toBe(first);
    expect(cache.get('tags\u0000safe', compile)).not.toBe(first);
    now += 999;
    expect(cache.get('images\u0000safe', compile)).toBe(first);
    now += 1;
    expect(cache.get('images\u0000safe', compile)).toEqual({ n: 3 });
  });

  it('keeps nothing when compiling throws', () => {
    const cache = new CompiledCache<number>('test', { registry: new CacheRegistry(), now: () => 0 });
    expect(() =>
      cache.get('bad', () => {
        throw new Error('does not compile');
      }),
    ).toThrow('does not compile');
    expect(cache.get('bad', () => 7)).toBe(7);
  });
});

describe('CompiledCache lifetimes', () => {
  it('keeps an entry as long as its lifetime says, else a second', () => {
    let now = 0;
    const cache = new CompiledCache<{ n: number; long: boolean }>('test', { registry: new CacheRegistry(), now: () => now });
    let compiled = 0;
    const lifetime = (v: { long: boolean }) => (v.long ? 60_000 : undefined);
    const long = cache.get('long', () => ({ n: ++compiled, long: true }), lifetime);
    const short = cache.get('short', () => ({ n: ++compiled, long: false }), lifetime);
    now = 59_999;
    expect(cache.get('long', () => ({ n: ++compiled, long: true }), lifetime)).toBe(long);
    expect(cache.get('short', () => ({ n: ++compiled, long: false }), lifetime)).not.toBe(short);
    now = 60_000;
    expect(cache.get('long', () => ({ n: ++compiled, long: true }), lifetime)).not.toBe(long);
  });
});

describe('CompiledCache values compiled again', () => {
  it('keeps the kept value past its time when it compiles again the same, and the new one when not', () => {
    let now = 0;
    const cache = new CompiledCache<{ text: string }>('test', { registry: new CacheRegistry(), now: () => now });
    const same = (kept: { text: string }, fresh: { text: string }) => kept.text === fresh.text;
    let text = 'safe';
    const compile = () => ({ text });
    const first = cache.get('k', compile, undefined, same);
    now = 1_000;
    expect(cache.get('k', compile, undefined, same)).toBe(first);
    text = 'solo';
    now = 2_000;
    const changed = cache.get('k', compile, undefined, same);
    expect(changed).not.toBe(first);
    expect(changed).toEqual({ text: 'solo' });
    // without `same`, a value compiled again is always the new one
    now = 3_000;
    expect(cache.get('k', compile)).not.toBe(changed);
  });
});

describe('CompiledCache registration', () => {
  it('registers under its name and counts a fresh value as a hit, a compile as a miss', () => {
    const registry = new CacheRegistry();
    let now = 0;
    const cache = new CompiledCache<number>('compiled_test', { registry, now: () => now });
    cache.get('a', () => 1);
    cache.get('a', () => 2);
    now = 1_000;
    cache.get('a', () => 3);
    const [entry] = registry.list();
    expect(entry?.name).toBe('compiled_test');
    expect(entry?.budget).toEqual({ entries: MAX_COMPILED_ENTRIES });
    expect({ hits: entry?.counts.hits, misses: entry?.counts.misses }).toEqual({ hits: 1, misses: 2 });
    expect(entry?.held()).toEqual({ entries: 1 });
  });

  it('stays within its budget when full and keeps an entry read since (no clearing of the whole map)', () => {
    const cache = new CompiledCache<number>('full_test', { registry: new CacheRegistry(), now: () => 0 });
    const first = cache.get('kept', () => -1);
    for (let i = 0; i < MAX_COMPILED_ENTRIES + 100; i++) {
      cache.get(`k${i}`, () => i);
      if (i % 64 === 0) cache.get('kept', () => -2);
    }
    expect(cache.get('kept', () => -3)).toBe(first);
  });

  it("the search context's caches are registered with the process registry", async () => {
    await import('../../src/contexts/search/plan.js');
    const names = processCaches.list().map((c) => c.name);
    expect(names).toEqual(
      expect.arrayContaining(['search_anonymous_queries', 'search_anonymous_requests', 'search_compiled_filters', 'search_reported_broken_filters']),
    );
  });
});

describe('ClockReading', () => {
  it('tells whether a compilation resolved a date against it', () => {
    const compile = (q: string) => {
      const now = new ClockReading(Date.UTC(2024, 0, 10));
      const query = compileQuery(q, { fields: queryFields.images, context: { userId: null, now } });
      return { query, read: now.read };
    };
    expect(compile('safe, solo || -pony').read).toBe(false);
    expect(compile('score.gte:10, width:100').read).toBe(false);
    // an absolute date is the same at any time: such a query is kept as long as any other
    expect(compile('created_at.gte:2020-01-01, first_seen_at.lt:2023-06-01T12:00:00Z').read).toBe(false);
    const relative = compile('created_at.gte:3 days ago');
    expect(relative.read).toBe(true);
    // resolved against the clock given, not the machine's
    expect(relative.query).toEqual({ range: { created_at: { gte: '2024-01-06T00:00:00Z' } } });
  });
});
