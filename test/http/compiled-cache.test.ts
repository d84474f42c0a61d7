/** The per-process cache of compiled queries: reuse within a second, then compile again; throws are not kept. */
import { describe, expect, it } from 'vitest';
import { compileQuery } from '../../grammar/compiler.js';
import { ClockReading, CompiledCache } from '../../src/contexts/search/compiled-cache.js';
import { queryFields } from '../../src/search/indexes/index.js';

describe('CompiledCache', () => {
  it('compiles a key once within a second, and again after', () => {
    let now = 1_000;
    const cache = new CompiledCache<{ n: number }>(() => now);
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
    const cache = new CompiledCache<number>(() => 0);
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
    const cache = new CompiledCache<{ n: number; long: boolean }>(() => now);
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

describe('ClockReading', () => {
  it('tells whether a compilation resolved a date against it', () => {
    const compile = (q: string) => {
      const now = new ClockReading(Date.UTC(2024, 0, 10));
      const query = compileQuery(q, { fields: queryFields.images, context: { userId: null, now } });
      return { query, read: now.read };
    };
    expect(compile('safe, solo || -pony').read).toBe(false);
    expect(compile('score.gte:10, width:100').read).toBe(false);
    const relative = compile('created_at.gte:3 days ago');
    expect(relative.read).toBe(true);
    // resolved against the clock given, not the machine's
    expect(relative.query).toEqual({ range: { created_at: { gte: '2024-01-06T00:00:00Z' } } });
  });
});
