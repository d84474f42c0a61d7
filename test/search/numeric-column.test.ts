/**
 * Ranges over a numeric column, by every path it takes (a test of each value, of the candidates
 * only, or read off the sort index for narrow ranges of large columns), against a plain filter
 * of the values: multi-valued documents, documents written after the sort index was built,
 * float32 fields, open and exclusive bounds.
 */
import { describe, expect, it } from 'vitest';
import { Bitmap } from '../../src/search/embedded/postings/bitmap.js';
import { inRange, NumericColumn, type NumericRange } from '../../src/search/embedded/columns/columns.js';
import { mulberry32 } from '../../src/lib/random.js';

interface Board {
  col: NumericColumn;
  values: Map<number, number[]>;
  length: number;
}

function board(n: number, float32: boolean, seed: number): Board {
  const random = mulberry32(seed);
  const col = new NumericColumn(!float32, false, float32);
  const values = new Map<number, number[]>();
  for (let d = 0; d < n; d++) {
    const roll = random();
    if (roll < 0.05) continue; // no value
    const one = () => (float32 ? random() * 100 - 50 : Math.floor(random() * 1000) - 500);
    const vals = roll < 0.07 ? [one(), one(), one()] : [one()];
    col.set(d, vals);
    values.set(d, vals);
  }
  col.touch(n - 1);
  return { col, values, length: n };
}

function expected(b: Board, r: NumericRange, f32: boolean, among?: number[]): number[] {
  const out: number[] = [];
  for (const d of among ?? [...b.values.keys()]) {
    const vals = b.values.get(d);
    if (vals?.some((v) => inRange(f32 ? Math.fround(v) : v, r))) out.push(d);
  }
  return out.sort((a, c) => a - c);
}

/** Where two ascending id lists first differ ('' when equal); deep equality of long arrays is slow. */
function firstDifference(got: ArrayLike<number>, want: readonly number[]): string {
  const n = Math.max(got.length, want.length);
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) return `at ${i}: got ${got[i]}, want ${want[i]}`;
  return '';
}

function randomRange(random: () => number, float32: boolean): NumericRange {
  const span = float32 ? 100 : 1000;
  const a = random() * span - span / 2;
  const width = random() < 0.7 ? random() * span * 0.05 : random() * span;
  const round = (x: number) => (float32 ? Math.fround(x) : Math.round(x));
  return {
    lo: random() < 0.1 ? -Infinity : round(a),
    loInclusive: random() < 0.5,
    hi: random() < 0.1 ? Infinity : round(a + width),
    hiInclusive: random() < 0.5,
  };
}

describe.each([false, true])('NumericColumn.range (float32 %s)', (float32) => {
  it('agrees with a filter of the values, before and after documents are added', () => {
    const b = board(80_000, float32, float32 ? 7 : 3);
    const random = mulberry32(11);
    const check = () => {
      for (let i = 0; i < 40; i++) {
        const r = randomRange(random, float32);
        expect(firstDifference(b.col.range(r).toArray(), expected(b, r, float32)), JSON.stringify(r)).toBe('');
        // with candidates, the answer may be narrowed to them or not: intersected, it is exact
        const among = [...b.values.keys()].filter(() => random() < (i % 2 === 0 ? 0.01 : 0.3)).sort((x, y) => x - y);
        const candidates = Bitmap.fromSorted(among);
        expect(firstDifference(candidates.and(b.col.range(r, candidates)).toArray(), expected(b, r, float32, among)), JSON.stringify(r)).toBe('');
      }
    };
    check();
    // documents written after the sort index was built are decided apart
    for (let d = b.length; d < b.length + 5000; d++) {
      const v = float32 ? random() * 100 - 50 : Math.floor(random() * 1000) - 500;
      const vals = d % 50 === 0 ? [v, v + 7] : [v];
      b.col.set(d, vals);
      b.values.set(d, vals);
    }
    b.length += 5000;
    check();
  });
});

describe('NumericColumn.trim', () => {
  it('gives back the room grown ahead, keeps every value and takes appends after it', () => {
    const b = board(70_000, false, 5);
    const grown = b.col.byteSize();
    b.col.trim();
    // 70,000 int32 values and their presence bits, where doubling had room for 131,072
    expect(b.col.byteSize()).toBe(70_000 * 4 + Math.ceil(70_000 / 32) * 4);
    expect(b.col.byteSize()).toBeLessThan(grown);
    for (const [d, vals] of b.values) expect(b.col.min(d)).toBe(Math.min(...vals));
    b.col.setOne(70_000, 12);
    b.col.setOne(70_100, -3);
    expect(b.col.min(70_000)).toBe(12);
    expect(b.col.min(70_100)).toBe(-3);
    expect(b.col.has(70_050)).toBe(false);
    const r: NumericRange = { lo: 12, loInclusive: true, hi: 12, hiInclusive: true };
    b.values.set(70_000, [12]);
    b.values.set(70_100, [-3]);
    expect(firstDifference(b.col.range(r).toArray(), expected(b, r, false))).toBe('');
  });
});
