import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bitmap, DenseAccumulator } from '../../src/search/embedded/postings/bitmap.js';
import { PostingList, unionPostings } from '../../src/search/embedded/postings/postings.js';
import { radixArgsort } from '../../src/search/embedded/columns/radix.js';
import { withSearchMemory } from '../../src/search/embedded/search-memory.js';

/** Values spread over a few chunks, dense enough in places to make bitset containers. */
const valueArb = fc.oneof(
  fc.integer({ min: 0, max: 300 }),
  fc.integer({ min: 65_000, max: 66_000 }),
  fc.integer({ min: 0, max: 4 * 65_536 }),
);
const setArb = fc.oneof(
  fc.array(valueArb, { maxLength: 300 }),
  // runs that push a chunk past 4,096 values (bitset containers)
  fc.record({ start: fc.integer({ min: 0, max: 200_000 }), len: fc.integer({ min: 3000, max: 9000 }), step: fc.integer({ min: 1, max: 3 }) }).map(
    ({ start, len, step }) => Array.from({ length: len }, (_, i) => start + i * step),
  ),
);

const sorted = (xs: Iterable<number>) => [...new Set(xs)].sort((a, b) => a - b);
const build = (xs: number[]) => {
  const b = new Bitmap();
  for (const x of xs) b.add(x);
  return b;
};

describe('Bitmap against Set semantics', () => {
  it('add / has / size / toArray', () => {
    fc.assert(
      fc.property(setArb, (xs) => {
        const b = build(xs);
        const s = sorted(xs);
        expect(Array.from(b.toArray())).toEqual(s);
        expect(b.size).toBe(s.length);
        for (const x of xs.slice(0, 50)) expect(b.has(x)).toBe(true);
        expect(b.has(1_000_000)).toBe(false);
      }),
    );
  });

  it('and / or / andNot / andSize', () => {
    fc.assert(
      fc.property(setArb, setArb, (xs, ys) => {
        const a = build(xs);
        const b = build(ys);
        const sa = new Set(xs);
        const sb = new Set(ys);
        expect(Array.from(a.and(b).toArray())).toEqual(sorted(xs.filter((x) => sb.has(x))));
        expect(Array.from(a.or(b).toArray())).toEqual(sorted([...xs, ...ys]));
        expect(Array.from(a.andNot(b).toArray())).toEqual(sorted(xs.filter((x) => !sb.has(x))));
        expect(a.andSize(b)).toBe(sorted(ys.filter((y) => sa.has(y))).length);
        // operands are untouched
        expect(Array.from(a.toArray())).toEqual(sorted(xs));
        expect(Array.from(b.toArray())).toEqual(sorted(ys));
      }),
    );
  });

  it('chains operations on the temporaries of a search (bitsets kept down to a few hundred values)', () => {
    const every = (step: number, from: number, n: number) => Array.from({ length: n }, (_, i) => from + i * step);
    // every 2nd ∩ every 3rd of 9,000 (and of 1,800) values: 1,500 (300) values in one chunk, kept
    // as a bitset
    const pairs = fc.oneof(
      fc.tuple(setArb, setArb),
      fc.constant([every(2, 70_000, 9000), every(3, 70_000, 6000)] as [number[], number[]]),
      fc.constant([every(2, 70_000, 1800), every(3, 70_000, 1200)] as [number[], number[]]),
    );
    fc.assert(
      fc.property(pairs, setArb, ([xs, ys], zs) => {
        const sb = new Set(ys);
        const sz = new Set(zs);
        const both = sorted(xs.filter((x) => sb.has(x)));
        withSearchMemory(() => {
          const ab = build(xs).and(build(ys));
          const z = build(zs);
          expect(Array.from(ab.toArray())).toEqual(both);
          expect(ab.size).toBe(both.length);
          expect(Array.from(ab.and(z).toArray())).toEqual(both.filter((x) => sz.has(x)));
          expect(Array.from(ab.or(z).toArray())).toEqual(sorted([...both, ...zs]));
          expect(Array.from(ab.andNot(z).toArray())).toEqual(both.filter((x) => !sz.has(x)));
          expect(Array.from(z.andNot(ab).toArray())).toEqual(sorted(zs).filter((x) => !both.includes(x)));
          expect(ab.andSize(z)).toBe(both.filter((x) => sz.has(x)).length);
          expect(Array.from(Bitmap.fromWords(ab.toWords(300_000)).toArray())).toEqual(both);
          for (const x of both.slice(0, 20)) expect(ab.has(x)).toBe(true);
          if (both.length > 0) expect(ab.select(both.length - 1)).toBe(both[both.length - 1]);
        });
      }),
    );
  });

  it('withBitsets keeps the set, and operations on it give the same answers', () => {
    fc.assert(
      fc.property(setArb, setArb, fc.integer({ min: 0, max: 5000 }), (xs, ys, min) => {
        const x = build(xs);
        const kept = x.withBitsets(min);
        const y = build(ys);
        expect(Array.from(kept.toArray())).toEqual(Array.from(x.toArray()));
        expect(kept.size).toBe(x.size);
        withSearchMemory(() => {
          expect(Array.from(y.and(kept).toArray())).toEqual(Array.from(y.and(x).toArray()));
          expect(Array.from(kept.and(y).toArray())).toEqual(Array.from(x.and(y).toArray()));
          expect(Array.from(y.andNot(kept).toArray())).toEqual(Array.from(y.andNot(x).toArray()));
          expect(Array.from(kept.or(y).toArray())).toEqual(Array.from(x.or(y).toArray()));
        });
      }),
    );
  });

  it('remove, append, fromSorted, fromWords, range, select, forEach', () => {
    fc.assert(
      fc.property(setArb, fc.array(valueArb, { maxLength: 100 }), (xs, rm) => {
        const s = sorted(xs);
        const b = Bitmap.fromSorted(s);
        expect(Array.from(b.toArray())).toEqual(s);
        const appended = new Bitmap();
        for (const x of s) appended.append(x);
        expect(Array.from(appended.toArray())).toEqual(s);
        for (const x of rm) b.remove(x);
        const gone = new Set(rm);
        const left = s.filter((x) => !gone.has(x));
        expect(Array.from(b.toArray())).toEqual(left);
        const words = b.toWords(300_000);
        expect(Array.from(Bitmap.fromWords(words).toArray())).toEqual(left);
        const seen: number[] = [];
        b.forEach((x) => seen.push(x));
        expect(seen).toEqual(left);
        if (left.length > 0) {
          const k = left.length >> 1;
          expect(b.select(k)).toBe(left[k]);
        }
        expect(b.select(left.length)).toBe(-1);
      }),
    );
    expect(Array.from(Bitmap.range(70_000).toArray())).toEqual(Array.from({ length: 70_000 }, (_, i) => i));
    expect(Bitmap.range(0).size).toBe(0);
  });

  it('DenseAccumulator unions', () => {
    fc.assert(
      fc.property(fc.array(setArb, { maxLength: 6 }), (lists) => {
        const acc = new DenseAccumulator(300_000);
        for (const l of lists) acc.addBitmap(build(l));
        expect(Array.from(acc.toBitmap().toArray())).toEqual(sorted(lists.flat()));
      }),
    );
  });
});

describe('PostingList', () => {
  it('behaves as a sorted set through the flat → bitmap switch', () => {
    fc.assert(
      fc.property(setArb, fc.array(setArb, { maxLength: 6 }), (xs, others) => {
        const s = sorted(xs);
        const p = new PostingList();
        for (const x of s) p.append(x);
        p.append(s[s.length - 1] ?? 0); // a repeat of the last document is ignored
        const expected = s.length === 0 ? [0] : s;
        expect(Array.from(p.docs())).toEqual(expected);
        expect(p.size).toBe(expected.length);
        expect(Array.from(p.toBitmap().toArray())).toEqual(expected);
        for (const x of xs.slice(0, 20)) expect(p.has(x)).toBe(true);
        expect(Array.from(PostingList.fromSorted(Uint32Array.from(expected)).docs())).toEqual(expected);
        const lists = others.map((o) => PostingList.fromSorted(Uint32Array.from(sorted(o))));
        expect(Array.from(unionPostings(lists, 300_000).toArray())).toEqual(sorted(others.flat()));
      }),
    );
  });

  it('rejects out-of-order appends', () => {
    const p = new PostingList();
    p.append(5);
    expect(() => p.append(3)).toThrow();
  });
});

describe('radixArgsort', () => {
  it('sorts stably by doubles and by int32', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ noNaN: true }), { maxLength: 200 }), fc.array(fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }), { maxLength: 200 }), (ds, is) => {
        const docs = Uint32Array.from(ds.keys());
        const got = Array.from(radixArgsort(docs, (d) => ds[d]!, false));
        const want = [...ds.keys()].sort((a, b) => (ds[a]! === ds[b]! || (ds[a] === 0 && ds[b] === 0) ? a - b : ds[a]! - ds[b]!));
        expect(got).toEqual(want);
        const idocs = Uint32Array.from(is.keys());
        const igot = Array.from(radixArgsort(idocs, (d) => is[d]!, true));
        expect(igot).toEqual([...is.keys()].sort((a, b) => is[a]! - is[b]! || a - b));
      }),
    );
  });
});
