import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DenseAccumulator } from '../../src/search/embedded/postings/bitmap.js';
import { FlatPostings } from '../../src/search/embedded/postings/flat-postings.js';
import { PostingList } from '../../src/search/embedded/postings/postings.js';

function expectHolds(list: PostingList, want: number[], space: number): void {
  expect(list.size).toBe(want.length);
  expect([...list.docs()]).toEqual(want);
  expect([...list.toBitmap().toArray()]).toEqual(want);
  const seen: number[] = [];
  list.forEach((d) => seen.push(d));
  expect(seen).toEqual(want);
  const acc = new DenseAccumulator(space);
  list.addTo(acc);
  expect([...acc.toBitmap().toArray()]).toEqual(want);
  for (const d of want.slice(0, 5)) expect(list.has(d)).toBe(true);
  expect(list.has(space + 1)).toBe(false);
}

describe('PostingList', () => {
  it('holds what was appended, across trims and the change to a bitmap past 2,048 documents', () => {
    const stepArb = fc.oneof(
      fc.record({ kind: fc.constant('one' as const), list: fc.nat(3), gap: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constant('bulk' as const), list: fc.nat(3), count: fc.integer({ min: 1, max: 2500 }) }),
      fc.record({ kind: fc.constant('trim' as const), list: fc.nat(3) }),
    );
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        const lists = Array.from({ length: 4 }, () => new PostingList());
        const want: number[][] = [[], [], [], []];
        let next = 0;
        for (const step of steps) {
          if (step.kind === 'trim') {
            lists[step.list]!.trim();
            continue;
          }
          const docs: number[] = [];
          if (step.kind === 'one') docs.push((next += step.gap));
          else for (let i = 0; i < step.count; i++) docs.push(++next);
          const w = want[step.list]!;
          for (const d of docs) {
            // a repeat of the last document is dropped; an earlier one is refused
            if (w.length > 0 && w[w.length - 1]! > d) {
              expect(() => lists[step.list]!.append(d)).toThrow(/in order/);
              continue;
            }
            lists[step.list]!.append(d);
            if (w.length === 0 || w[w.length - 1]! < d) w.push(d);
          }
        }
        lists.forEach((l, i) => expectHolds(l, want[i]!, next + 1));
      }),
      { numRuns: 200 },
    );
  });
});

/** Steps on a few lists of one FlatPostings: appends one by one and by runs, clears, trims. */
const flatStepArb = fc.oneof(
  fc.record({ kind: fc.constant('add' as const) }),
  fc.record({ kind: fc.constant('one' as const), list: fc.nat(7), gap: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('many' as const), list: fc.nat(7), gaps: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 300 }) }),
  fc.record({ kind: fc.constant('clear' as const), list: fc.nat(7) }),
  fc.constant({ kind: 'trim' as const }),
);

describe('FlatPostings', () => {
  it('keeps every list as appended while lists move, the pool grows and is packed', () => {
    fc.assert(
      fc.property(fc.array(flatStepArb, { maxLength: 80 }), (steps) => {
        const flat = new FlatPostings();
        const want: number[][] = [];
        const lastOf = (s: number) => (want[s]!.length === 0 ? -1 : want[s]![want[s]!.length - 1]!);
        for (const step of steps) {
          if (step.kind === 'add') {
            expect(flat.add()).toBe(want.length);
            want.push([]);
          } else if (step.kind === 'trim') {
            flat.trim();
            // packed exactly: the documents and four words of bookkeeping per list
            const docs = want.reduce((n, w) => n + w.length, 0);
            expect(flat.byteSize()).toBe(docs * 4 + want.length * 12);
          } else if (want.length > 0) {
            const s = step.list % want.length;
            if (step.kind === 'clear') {
              flat.clear(s);
              want[s] = [];
            } else if (step.kind === 'one') {
              const d = lastOf(s) + step.gap;
              flat.append(s, d);
              want[s]!.push(d);
            } else {
              let d = lastOf(s) + 1;
              const run = step.gaps.map((g) => (d += g));
              flat.appendMany(s, Uint32Array.from(run), 0, run.length);
              for (const x of run) if (lastOf(s) < x) want[s]!.push(x);
            }
          }
          expect(flat.size).toBe(want.length);
        }
        want.forEach((w, s) => {
          expect([...flat.view(s)]).toEqual(w);
          expect(flat.length(s)).toBe(w.length);
          expect(flat.last(s)).toBe(w.length === 0 ? -1 : w[w.length - 1]);
          const seen: number[] = [];
          flat.forEach(s, (d) => seen.push(d));
          expect(seen).toEqual(w);
          const space = (w[w.length - 1] ?? 0) + 1;
          const acc = new DenseAccumulator(space);
          flat.addTo(s, acc);
          expect([...acc.toBitmap().toArray()]).toEqual(w);
          for (const d of w.slice(0, 3)) expect(flat.has(s, d)).toBe(true);
          expect(flat.has(s, space)).toBe(false);
        });
      }),
      { numRuns: 300 },
    );
  });

  it('a list grown at the end of the pool stays where it is; one grown elsewhere moves and leaves a hole that a packing removes', () => {
    const flat = new FlatPostings();
    const a = flat.add();
    const b = flat.add();
    for (let d = 0; d < 100; d++) flat.append(a, d);
    for (let d = 0; d < 100; d++) flat.append(b, d);
    // a grew before b: its later growth moved it past b
    expect([...flat.view(a)]).toEqual(Array.from({ length: 100 }, (_, i) => i));
    const before = flat.byteSize();
    flat.trim();
    expect(flat.byteSize()).toBeLessThan(before);
    expect(flat.byteSize()).toBe(200 * 4 + 2 * 12);
    flat.append(a, 1000);
    expect([...flat.view(a)].slice(-2)).toEqual([99, 1000]);
    expect([...flat.view(b)]).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });
});
