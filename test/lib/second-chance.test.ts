/**
 * Eviction by second chance over a map's insertion order: what is dropped, what is passed over,
 * and that a hit never reorders the map (a move per hit made V8 rebuild large tables at once).
 */
import { describe, expect, it } from 'vitest';
import { nextToEvict, nextToEvictBy } from '../../src/lib/second-chance.js';

const cacheOf = (...keys: number[]) => new Map(keys.map((k) => [k, { used: false }]));

describe('nextToEvict', () => {
  it('names the oldest entry when none was used, and nothing in an empty map', () => {
    expect(nextToEvict(cacheOf(3, 1, 2))).toBe(3);
    expect(nextToEvict(new Map<number, { used: boolean }>())).toBeUndefined();
  });

  it('passes over used entries once: their flag cleared, moved to the young end', () => {
    const cache = cacheOf(1, 2, 3, 4);
    cache.get(1)!.used = true;
    cache.get(2)!.used = true;
    expect(nextToEvict(cache)).toBe(3);
    expect([...cache.keys()]).toEqual([3, 4, 1, 2]);
    expect([...cache.values()].map((e) => e.used)).toEqual([false, false, false, false]);
    // all used: the first one, after its second chance, is the one dropped
    const hot = cacheOf(1, 2);
    for (const e of hot.values()) e.used = true;
    expect(nextToEvict(hot)).toBe(1);
  });

  it('passes over at most 32 used entries for one eviction, then drops the oldest', () => {
    const keys = Array.from({ length: 40 }, (_, i) => i);
    const cache = cacheOf(...keys);
    for (const e of cache.values()) e.used = true;
    // 0..31 were passed over (moved, unmarked); 32 is the oldest now, dropped although used
    expect(nextToEvict(cache)).toBe(32);
    expect([...cache.keys()].slice(0, 8)).toEqual([32, 33, 34, 35, 36, 37, 38, 39]);
    expect(cache.get(32)!.used).toBe(true);
    expect(cache.get(0)!.used).toBe(false);
  });

  it('reads and clears the flags where a cache keeps them apart from its map', () => {
    // slots 0..3 by key; keys 1 and 2 used
    const used = new Uint8Array([0, 1, 1, 0]);
    const slots = new Map([[10, 0], [11, 1], [12, 2], [13, 3]]);
    const takeUse = (slot: number) => {
      const was = used[slot] === 1;
      used[slot] = 0;
      return was;
    };
    expect(nextToEvictBy(slots, takeUse)).toBe(10);
    slots.delete(10);
    expect(nextToEvictBy(slots, takeUse)).toBe(13);
    expect([...slots.keys()]).toEqual([13, 11, 12]);
    expect([...used]).toEqual([0, 0, 0, 0]);
  });
});
