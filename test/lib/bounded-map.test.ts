/**
 * The caches' one bounded map: its entry and byte budgets, eviction by second chance (a read only
 * marks its entry), replacing, deleting and what eviction reports.
 */
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/lib/bounded-map.js';

const keysOf = <K, V>(map: BoundedMap<K, V>) => [...map.entries()].map(([k]) => k);

describe('BoundedMap', () => {
  it('keeps at most maxEntries, dropping the oldest entry not read', () => {
    const map = new BoundedMap<string, number>({ maxEntries: 3 });
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    map.set('d', 4);
    expect(map.size).toBe(3);
    expect(map.has('a')).toBe(false);
    expect(keysOf(map)).toEqual(['b', 'c', 'd']);
  });

  it('gives an entry read since eviction last passed a second chance', () => {
    const map = new BoundedMap<string, number>({ maxEntries: 3 });
    map.set('a', 1);
    map.set('b', 2);
    map.set('c', 3);
    expect(map.get('a')).toBe(1);
    map.set('d', 4);
    // 'a' was read: passed over once, 'b' goes
    expect(keysOf(map).sort()).toEqual(['a', 'c', 'd']);
    map.set('e', 5);
    // 'a' was moved to the young end: 'c' is the oldest now, and goes
    expect(keysOf(map).sort()).toEqual(['a', 'd', 'e']);
  });

  it('peek reads without marking', () => {
    const map = new BoundedMap<string, number>({ maxEntries: 2 });
    map.set('a', 1);
    map.set('b', 2);
    expect(map.peek('a')).toBe(1);
    map.set('c', 3);
    expect(map.has('a')).toBe(false);
  });

  it('keeps bytes within maxBytes as sizeOf counts them, and refuses an entry larger than the budget', () => {
    const map = new BoundedMap<string, string>({ maxBytes: 10, sizeOf: (v) => v.length });
    map.set('a', 'xxxx');
    map.set('b', 'yyyy');
    expect(map.bytes).toBe(8);
    map.set('c', 'zzzz');
    expect(map.bytes).toBe(8);
    expect(map.has('a')).toBe(false);
    expect(map.set('huge', 'x'.repeat(11))).toBe(false);
    expect(map.has('huge')).toBe(false);
    expect(map.bytes).toBe(8);
  });

  it('counts a replaced entry once, and forgets deleted and cleared bytes', () => {
    const map = new BoundedMap<string, string>({ maxBytes: 100, sizeOf: (v) => v.length });
    map.set('a', 'xxxx');
    map.set('a', 'xx');
    expect(map.bytes).toBe(2);
    expect(map.size).toBe(1);
    expect(map.delete('a')).toBe(true);
    expect(map.delete('a')).toBe(false);
    expect(map.bytes).toBe(0);
    map.set('b', 'yyy');
    map.clear();
    expect(map.size).toBe(0);
    expect(map.bytes).toBe(0);
  });

  it('tells onEvict of entries dropped for room only', () => {
    const evicted: string[] = [];
    const map = new BoundedMap<string, number>({ maxEntries: 2, onEvict: (k) => evicted.push(k) });
    map.set('a', 1);
    map.set('b', 2);
    map.delete('b');
    map.set('c', 3);
    map.set('d', 4);
    map.clear();
    expect(evicted).toEqual(['a']);
  });

  it('allows deleting while iterating', () => {
    const map = new BoundedMap<number, number>();
    for (let i = 0; i < 10; i++) map.set(i, i);
    for (const [k, v] of map.entries()) if (v % 2 === 0) map.delete(k);
    expect([...map.values()]).toEqual([1, 3, 5, 7, 9]);
  });

  it('evicts by its own order: a replaced key is young, a deleted one leaves no trace', () => {
    const map = new BoundedMap<string, number>({ maxEntries: 2 });
    map.set('a', 1);
    map.set('b', 2);
    for (let i = 0; i < 100; i++) map.set('a', i);
    map.set('c', 3);
    expect([...map.entries()].map(([k]) => k).sort()).toEqual(['a', 'c']);
    map.delete('a');
    map.set('d', 4);
    map.set('e', 5);
    expect([...map.entries()].map(([k]) => k).sort()).toEqual(['d', 'e']);
  });

  it('stays right over many evictions, with reads and deletes between them', () => {
    const map = new BoundedMap<number, number>({ maxEntries: 100 });
    for (let i = 0; i < 100_000; i++) {
      map.set(i, i);
      if (i % 7 === 0) map.get(i - 50);
      if (i % 11 === 0) map.delete(i - 3);
    }
    expect(map.size).toBe(100);
    // what is kept is among the last keys set: an entry read gets one more round at most
    for (const [k, v] of map.entries()) {
      expect(v).toBe(k);
      expect(k).toBeGreaterThan(100_000 - 300);
    }
  });

  it('refuses a budget of no entries', () => {
    expect(() => new BoundedMap({ maxEntries: 0 })).toThrow(RangeError);
  });
});
