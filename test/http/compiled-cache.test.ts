/** The per-process cache of compiled queries: reuse within a second, then compile again; throws are not kept. */
import { describe, expect, it } from 'vitest';
import { CompiledCache } from '../../src/http/compiled-cache.js';

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
