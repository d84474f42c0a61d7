import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DenseAccumulator } from '../../src/search/embedded/postings/bitmap.js';
import { PostingList } from '../../src/search/embedded/postings/postings.js';

/** One step on one of a few lists: append documents one by one, as a batch, or compact them all. */
const stepArb = fc.oneof(
  fc.record({ kind: fc.constant('one' as const), list: fc.nat(3), gap: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ kind: fc.constant('many' as const), list: fc.nat(3), gaps: fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 40 }) }),
  fc.record({ kind: fc.constant('bulk' as const), list: fc.nat(3), count: fc.integer({ min: 1, max: 2500 }) }),
  fc.constant({ kind: 'compact' as const }),
  fc.record({ kind: fc.constant('trim' as const), list: fc.nat(3) }),
);

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
  it('holds what was appended through compactions into one shared array, trims and growth past it', () => {
    fc.assert(
      fc.property(fc.array(stepArb, { maxLength: 30 }), (steps) => {
        const lists = Array.from({ length: 4 }, () => new PostingList());
        const want: number[][] = [[], [], [], []];
        let next = 0;
        for (const step of steps) {
          if (step.kind === 'compact') PostingList.compact(lists);
          else if (step.kind === 'trim') lists[step.list]!.trim();
          else {
            const docs: number[] = [];
            if (step.kind === 'one') docs.push((next += step.gap + 1));
            else if (step.kind === 'many') for (const g of step.gaps) docs.push((next += g));
            else for (let i = 0; i < step.count; i++) docs.push(++next);
            const list = lists[step.list]!;
            if (step.kind === 'one') list.append(docs[0]!);
            else list.appendMany(Uint32Array.from(docs), 0, docs.length);
            // a repeat of the last document is dropped
            const w = want[step.list]!;
            for (const d of docs) if (w.length === 0 || w[w.length - 1]! < d) w.push(d);
          }
        }
        lists.forEach((l, i) => expectHolds(l, want[i]!, next + 1));
      }),
      { numRuns: 300 },
    );
  });

  it('after a compaction, short lists cost their documents and nothing more', () => {
    const lists = Array.from({ length: 100 }, (_, i) => {
      const l = new PostingList();
      for (let d = 0; d < 1 + (i % 7); d++) l.append(i * 10 + d);
      return l;
    });
    PostingList.compact(lists);
    const total = lists.reduce((n, l) => n + l.size, 0);
    expect(lists.reduce((n, l) => n + l.byteSize(), 0)).toBe(total * 4);
    lists[3]!.append(10_000);
    expect([...lists[3]!.docs()]).toEqual([30, 31, 32, 33, 10_000]);
    expect([...lists[4]!.docs()]).toEqual([40, 41, 42, 43, 44]);
  });
});
