import { describe, expect, it } from 'vitest';
import { RowStore } from '../../src/search/embedded/store/row-store.js';

describe('RowStore', () => {
  it('keeps its records through a trim, and grows again after one (also when empty)', () => {
    const empty = new RowStore();
    empty.trim();
    empty.put(0, Uint8Array.of(1, 2));
    expect([...empty.record(0)]).toEqual([1, 2]);

    const store = new RowStore();
    for (let d = 0; d < 300; d += 3) store.put(d, Uint8Array.of(d % 256, 7));
    store.trim();
    expect(store.byteSize()).toBeLessThan(300 * 2 + 310 * 8);
    for (let d = 300; d < 400; d += 3) store.put(d, Uint8Array.of(d % 256));
    expect([...store.record(297)]).toEqual([297 % 256, 7]);
    expect([...store.record(298)]).toEqual([]);
    expect([...store.record(300)]).toEqual([300 % 256]);
  });
});
