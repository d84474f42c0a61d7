import { Bitmap } from '../postings/bitmap.js';
import { PostingList } from '../postings/postings.js';
import { radixArgsort } from './radix.js';
import { u32 } from '../search-memory.js';

export interface NumericRange {
  lo: number;
  loInclusive: boolean;
  hi: number;
  hiInclusive: boolean;
}

export function inRange(v: number, r: NumericRange): boolean {
  return (r.loInclusive ? v >= r.lo : v > r.lo) && (r.hiInclusive ? v <= r.hi : v < r.hi);
}

/**
 * Columns at least this long answer ranges from their sort index (built on first use, like for
 * sorting); below, a scan of every value is as fast.
 */
const SORTED_RANGE_MIN = 65_536;

/** Sorted permutation of the documents that have a value, covering documents below `upto`. */
export interface SortIndex {
  perm: Uint32Array;
  upto: number;
}

/**
 * A numeric doc-values column (integer, long, float, date as epoch milliseconds, and the
 * numeric fields of nested objects). One value per document in a typed array grown by doubling,
 * a presence bitset, and for the rare multi-valued documents all their values on the side (the
 * column then holds the smallest).
 *
 * `integer` columns start as Int32Array and move to Float64Array if a value does not fit.
 * Values of a document never change once written (an update appends a new document), which
 * keeps the lazily built sort index valid for every document below its `upto`.
 */
export class NumericColumn {
  values: Int32Array | Float64Array;
  present: Uint32Array;
  /** Documents with several values: all of them, ascending. */
  multi = new Map<number, Float64Array>();
  /** Documents covered (one more than the largest document written). */
  length = 0;
  /** Optional value → documents index, for term lookups on id-like nested fields. */
  terms: Map<number, PostingList> | null;
  private sortIndex: SortIndex | null = null;

  constructor(
    readonly integer: boolean,
    withTerms = false,
    /** A `float` field: values compare and sort as 32-bit floats (they are stored as given). */
    readonly float32 = false,
  ) {
    this.values = integer ? new Int32Array(1024) : new Float64Array(1024);
    this.present = new Uint32Array(32);
    this.terms = withTerms ? new Map() : null;
  }

  get isInt32(): boolean {
    return this.values instanceof Int32Array;
  }

  private grow(doc: number): void {
    if (doc >= this.values.length) {
      let cap = this.values.length * 2;
      while (cap <= doc) cap *= 2;
      const next = this.values instanceof Int32Array ? new Int32Array(cap) : new Float64Array(cap);
      next.set(this.values);
      this.values = next;
    }
    const words = (doc >>> 5) + 1;
    if (words > this.present.length) {
      let cap = this.present.length * 2;
      while (cap < words) cap *= 2;
      const next = new Uint32Array(cap);
      next.set(this.present);
      this.present = next;
    }
  }

  /**
   * Give back the room grown ahead of appends (after a bulk load): doubling leaves up to half of
   * every column unused, a hundred megabytes over an index's columns on a large board.
   */
  trim(): void {
    if (this.values.length > this.length) this.values = this.values.slice(0, Math.max(1, this.length));
    const words = (this.length + 31) >>> 5;
    if (this.present.length > words) this.present = this.present.slice(0, Math.max(1, words));
  }

  private toFloat64(): void {
    const next = new Float64Array(this.values.length);
    next.set(this.values);
    this.values = next;
  }

  /** Set the single value of `doc` (finite; integers truncated by the caller). */
  setOne(doc: number, v: number): void {
    if (doc >= this.values.length || doc >>> 5 >= this.present.length) this.grow(doc);
    if (this.integer) v = Math.trunc(v);
    if (this.values instanceof Int32Array && (v | 0) !== v) this.toFloat64();
    this.values[doc] = v;
    this.present[doc >>> 5]! |= 1 << (doc & 31);
    if (doc >= this.length) this.length = doc + 1;
    if (this.terms) {
      let p = this.terms.get(v);
      if (!p) this.terms.set(v, (p = new PostingList()));
      p.append(doc);
    }
  }

  /** Set the values of `doc` (not empty, finite); documents are written in increasing order. */
  set(doc: number, vals: number[]): void {
    this.grow(doc);
    let min = vals[0]!;
    if (vals.length > 1) {
      const sorted = Float64Array.from(new Set(vals)).sort();
      min = sorted[0]!;
      if (sorted.length > 1) this.multi.set(doc, sorted);
    }
    if (this.values instanceof Int32Array && (min | 0) !== min) this.toFloat64();
    this.values[doc] = min;
    this.present[doc >>> 5]! |= 1 << (doc & 31);
    if (doc >= this.length) this.length = doc + 1;
    if (this.terms) {
      for (const v of this.multi.get(doc) ?? [min]) {
        let p = this.terms.get(v);
        if (!p) this.terms.set(v, (p = new PostingList()));
        p.append(doc);
      }
    }
  }

  /** Rebuild the value → documents index from the column (after a snapshot load). */
  rebuildTerms(): void {
    if (!this.terms) return;
    for (let d = 0; d < this.length; d++) {
      if (!this.has(d)) continue;
      for (const v of this.multi.get(d) ?? [this.values[d]!]) {
        let p = this.terms.get(v);
        if (!p) this.terms.set(v, (p = new PostingList()));
        p.append(d);
      }
    }
  }

  /** Mark that documents up to `doc` exist (without a value here). */
  touch(doc: number): void {
    if (doc >= this.length) {
      this.grow(doc);
      this.length = doc + 1;
    }
  }

  has(doc: number): boolean {
    return doc < this.length && (this.present[doc >>> 5]! & (1 << (doc & 31))) !== 0;
  }

  /** Sort key of a document for ascending (smallest value) or descending order (largest). */
  sortKey(doc: number, desc: boolean): number | undefined {
    const v = desc ? this.max(doc) : this.min(doc);
    return v === undefined || !this.float32 ? v : Math.fround(v);
  }

  /** Smallest value, or undefined. */
  min(doc: number): number | undefined {
    return this.has(doc) ? this.values[doc]! : undefined;
  }

  max(doc: number): number | undefined {
    if (!this.has(doc)) return undefined;
    const m = this.multi.get(doc);
    return m ? m[m.length - 1]! : this.values[doc]!;
  }

  /** All values of `doc`, ascending (empty when missing). */
  all(doc: number): ArrayLike<number> {
    if (!this.has(doc)) return [];
    return this.multi.get(doc) ?? [this.values[doc]!];
  }

  exists(): Bitmap {
    return Bitmap.fromWords(this.present.subarray(0, (this.length + 31) >>> 5));
  }

  /** Documents with a value equal to `v` (already a float32 for a float field). */
  equal(v: number, candidates?: Bitmap): Bitmap {
    if (this.terms) {
      const p = this.terms.get(v);
      return p ? p.toBitmap() : new Bitmap();
    }
    return this.range({ lo: v, loInclusive: true, hi: v, hiInclusive: true }, candidates);
  }

  /** Documents with a value in `set` (values already float32 for a float field). */
  inSet(set: Set<number>, candidates?: Bitmap): Bitmap {
    if (set.size === 0) return new Bitmap();
    if (set.size === 1) return this.equal(set.values().next().value!, candidates);
    const f32 = this.float32;
    const hit = (d: number): boolean => {
      const m = this.multi.size > 0 ? this.multi.get(d) : undefined;
      if (m) return m.some((v) => set.has(f32 ? Math.fround(v) : v));
      return set.has(f32 ? Math.fround(this.values[d]!) : this.values[d]!);
    };
    const docs = candidates && candidates.size * 8 < this.length ? candidates.toArray(u32(candidates.size)) : null;
    const out: number[] = [];
    if (docs) {
      for (const d of docs) if (this.has(d) && hit(d)) out.push(d);
    } else {
      for (let d = 0; d < this.length; d++) if ((this.present[d >>> 5]! & (1 << (d & 31))) !== 0 && hit(d)) out.push(d);
    }
    return Bitmap.fromSorted(out);
  }

  /**
   * Documents with a value in the range. With `candidates`, only those are tested (the result
   * is then a subset of them), which is much cheaper when they are few. A narrow range of a large
   * column is read off the sort index instead: two binary searches, then one bit per match.
   */
  range(r: NumericRange, candidates?: Bitmap): Bitmap {
    const span = this.length >= SORTED_RANGE_MIN ? this.sortedSpan(r) : null;
    const narrow = span !== null && (span.end - span.start) * 8 < this.length;
    if (candidates && candidates.size * 2 < this.length && !(narrow && span.end - span.start < candidates.size)) {
      return this.rangeOf(candidates.toArray(u32(candidates.size)), r);
    }
    if (narrow) return this.rangeFromSpan(span, r);
    return this.rangeScan(r);
  }

  /** The documents among `docs` (ascending) with a value in the range. */
  private rangeOf(docs: Uint32Array | number[], r: NumericRange): Bitmap {
    const vals = this.values;
    const pres = this.present;
    const { lo, hi, loInclusive, hiInclusive } = r;
    const f32 = this.float32;
    const out = u32(docs.length);
    let k = 0;
    for (let i = 0; i < docs.length; i++) {
      const d = docs[i]!;
      if (d >= this.length || (pres[d >>> 5]! & (1 << (d & 31))) === 0) continue;
      if (this.multi.size > 0 && this.multi.has(d)) {
        if (this.multi.get(d)!.some((v) => inRange(f32 ? Math.fround(v) : v, r))) out[k++] = d;
        continue;
      }
      const v = f32 ? Math.fround(vals[d]!) : vals[d]!;
      if ((loInclusive ? v >= lo : v > lo) && (hiInclusive ? v <= hi : v < hi)) out[k++] = d;
    }
    return Bitmap.fromSorted(out, k);
  }

  /** Every document tested. */
  private rangeScan(r: NumericRange): Bitmap {
    const vals = this.values;
    const pres = this.present;
    const { lo, hi, loInclusive, hiInclusive } = r;
    const f32 = this.float32;
    const n = this.length;
    const words = u32((n + 31) >>> 5);
    for (let w = 0; w < words.length; w++) {
      let bits = pres[w]!;
      if (bits === 0) continue;
      let out = 0;
      const base = w << 5;
      while (bits !== 0) {
        const t = bits & -bits;
        const b = 31 - Math.clz32(t);
        bits ^= t;
        const v = f32 ? Math.fround(vals[base + b]!) : vals[base + b]!;
        if ((loInclusive ? v >= lo : v > lo) && (hiInclusive ? v <= hi : v < hi)) out |= t;
      }
      words[w] = out;
    }
    this.decideMulti(words, r);
    return Bitmap.fromWords(words);
  }

  /**
   * Where the range lies in the sort index: [start, end) of its permutation. Documents written
   * since the index was built, and multi-valued ones (the index orders them by their smallest
   * value), are decided apart.
   */
  private sortedSpan(r: NumericRange): { index: SortIndex; start: number; end: number } {
    const index = this.sorted();
    const { perm } = index;
    const vals = this.values;
    const f32 = this.float32;
    const valueAt = (i: number) => (f32 ? Math.fround(vals[perm[i]!]!) : vals[perm[i]!]!);
    const firstWhere = (from: number, beyond: (v: number) => boolean) => {
      let a = from;
      let b = perm.length;
      while (a < b) {
        const mid = (a + b) >>> 1;
        if (beyond(valueAt(mid))) b = mid;
        else a = mid + 1;
      }
      return a;
    };
    const start = firstWhere(0, (v) => (r.loInclusive ? v >= r.lo : v > r.lo));
    const end = firstWhere(start, (v) => (r.hiInclusive ? v > r.hi : v >= r.hi));
    return { index, start, end };
  }

  private rangeFromSpan(span: { index: SortIndex; start: number; end: number }, r: NumericRange): Bitmap {
    const { perm, upto } = span.index;
    const words = u32((this.length + 31) >>> 5);
    for (let i = span.start; i < span.end; i++) {
      const d = perm[i]!;
      words[d >>> 5]! |= 1 << (d & 31);
    }
    const f32 = this.float32;
    for (let d = upto; d < this.length; d++) {
      if (this.has(d) && inRange(f32 ? Math.fround(this.values[d]!) : this.values[d]!, r)) words[d >>> 5]! |= 1 << (d & 31);
    }
    this.decideMulti(words, r);
    return Bitmap.fromWords(words);
  }

  /** Multi-valued documents match when any of their values is in the range. */
  private decideMulti(words: Uint32Array, r: NumericRange): void {
    const f32 = this.float32;
    for (const [d, all] of this.multi) {
      const hit = all.some((v) => inRange(f32 ? Math.fround(v) : v, r));
      if (hit) words[d >>> 5]! |= 1 << (d & 31);
      else words[d >>> 5]! &= ~(1 << (d & 31));
    }
  }

  /**
   * Documents with a value, ascending by value then document number, for documents below
   * `upto`. Rebuilt when many documents were written since the last build.
   */
  sorted(): SortIndex {
    const s = this.sortIndex;
    if (s && this.length - s.upto <= Math.max(8192, s.upto >>> 3)) return s;
    const docs = Bitmap.fromWords(this.present.subarray(0, (this.length + 31) >>> 5)).toArray();
    const vals = this.values;
    const perm = this.float32
      ? radixArgsort(docs, (d) => Math.fround(vals[d]!), false)
      : radixArgsort(docs, (d) => vals[d]!, vals instanceof Int32Array);
    this.sortIndex = { perm, upto: this.length };
    return this.sortIndex;
  }

  byteSize(): number {
    return this.values.byteLength + this.present.byteLength + (this.sortIndex?.perm.byteLength ?? 0);
  }
}
