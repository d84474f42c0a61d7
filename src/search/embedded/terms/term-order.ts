import { compareStrings, compileWildcard, wildcardLiteralPrefix, wildcardLiterals } from '../../../../grammar/index.js';
import { SortedTermText } from './term-text.js';
import type { TermStore } from './term-store.js';

/** New terms are kept unsorted until there are this many, then merged into the sorted array. */
export const PENDING_MAX = 2048;

/**
 * A term dictionary's terms in term order, for the queries that read a range of terms: prefix and
 * wildcard queries binary-search their literal prefix, fuzzy queries a prefix length, range queries
 * their bounds. The sorted array of ordinals is maintained lazily; terms added since the last sort
 * wait in a short unsorted list. `TermDictionary` owns one and tells it of each new term.
 */
export class TermOrder {
  /** Ordinals added since the last sort, in `pending[0, pendingCount)`. */
  private pending = new Uint32Array(64);
  private pendingCount = 0;
  private sorted: Uint32Array = new Uint32Array(0);
  private ranks: Int32Array | null = null;
  /** The sorted terms as one string, built on the first substring search after a change. */
  private text: SortedTermText | null = null;
  private keyed: { keys: string[]; sorted: Uint32Array; upto: number } | null = null;

  constructor(private store: TermStore) {}

  /** Start again from a snapshot's store and its ordinals in term order. */
  restore(store: TermStore, sorted: Uint32Array): void {
    this.store = store;
    this.sorted = sorted;
    this.pendingCount = 0;
    this.ranks = null;
    this.keyed = null;
    this.text = null;
  }

  /** Note a new term `ord` of `store` (the dictionary's store, which a new term may replace). */
  added(store: TermStore, ord: number): void {
    this.store = store;
    if (this.pendingCount === this.pending.length) {
      const pending = new Uint32Array(this.pending.length * 2);
      pending.set(this.pending);
      this.pending = pending;
    }
    this.pending[this.pendingCount++] = ord;
    this.ranks = null;
  }

  /** Ordinals added since the last sort. */
  private pendingOrds(): Uint32Array {
    return this.pending.subarray(0, this.pendingCount);
  }

  /** Ordinals sorted by term. */
  sortedOrds(): Uint32Array {
    if (this.pendingCount > 0) {
      const store = this.store;
      const add = this.pending.slice(0, this.pendingCount).sort((a, b) => store.compare(a, b));
      const old = this.sorted;
      const merged = new Uint32Array(old.length + add.length);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < old.length && j < add.length) {
        if (store.compare(old[i]!, add[j]!) <= 0) merged[k++] = old[i++]!;
        else merged[k++] = add[j++]!;
      }
      while (i < old.length) merged[k++] = old[i++]!;
      while (j < add.length) merged[k++] = add[j++]!;
      this.sorted = merged;
      this.pendingCount = 0;
      if (this.pending.length > 1024) this.pending = new Uint32Array(64);
      this.text = null;
    }
    return this.sorted;
  }

  /** Rank of each ordinal in term order (for sorting documents by a keyword field). */
  rankOf(): Int32Array {
    if (!this.ranks) {
      const sorted = this.sortedOrds();
      const ranks = new Int32Array(this.store.size);
      for (let i = 0; i < sorted.length; i++) ranks[sorted[i]!] = i;
      this.ranks = ranks;
    }
    return this.ranks;
  }

  /** First index in the sorted array whose term is ≥ `s` (or > `s` when `after`). */
  private lowerBound(sorted: Uint32Array, s: string, after: boolean): number {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const c = compareStrings(this.store.at(sorted[mid]!), s);
      if (c < 0 || (after && c === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Calls `fn` for each ordinal whose term starts with `prefix` (all terms for ""). */
  forPrefix(prefix: string, fn: (ord: number) => void): void {
    if (this.pendingCount > PENDING_MAX) this.sortedOrds();
    const sorted = this.sorted;
    const [lo, hi] = this.prefixRange(prefix);
    for (let i = lo; i < hi; i++) fn(sorted[i]!);
    for (const ord of this.pendingOrds()) if (this.store.at(ord).startsWith(prefix)) fn(ord);
  }

  /**
   * The sorted positions [lo, hi) of the terms starting with `prefix`: they are contiguous in
   * term order, so two binary searches find them without reading the terms in between.
   */
  private prefixRange(prefix: string): [number, number] {
    const sorted = this.sorted;
    if (prefix === '') return [0, sorted.length];
    const lo = this.lowerBound(sorted, prefix, false);
    let a = lo;
    let b = sorted.length;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.store.at(sorted[mid]!).startsWith(prefix)) a = mid + 1;
      else b = mid;
    }
    return [lo, a];
  }

  /** Ordinals whose term matches the wildcard `pattern` (case-sensitive). */
  wildcardOrds(pattern: string): number[] {
    const match = compileWildcard(pattern, false);
    const prefix = wildcardLiteralPrefix(pattern);
    const out: number[] = [];
    // Without a literal prefix, every term is a candidate: find those holding the longest
    // literal run with one substring search instead of reading every term.
    const longest = prefix === '' ? wildcardLiterals(pattern).reduce((a, b) => (b.length > a.length ? b : a), '') : '';
    const positions = longest === '' ? undefined : this.sortedText().positionsContaining(longest);
    if (positions === undefined) {
      this.forPrefix(prefix, (o) => {
        if (match(this.store.at(o))) out.push(o);
      });
      return out;
    }
    const sorted = this.sorted;
    for (const i of positions) {
      const ord = sorted[i]!;
      if (match(this.store.at(ord))) out.push(ord);
    }
    for (const ord of this.pendingOrds()) if (match(this.store.at(ord))) out.push(ord);
    return out;
  }

  /** The sorted terms as one string (pending terms merged first when there are many). */
  private sortedText(): SortedTermText {
    if (this.pendingCount > PENDING_MAX) this.sortedOrds();
    if (this.text === null) {
      const sorted = this.sorted;
      const inOrder = new Array<string>(sorted.length);
      for (let i = 0; i < sorted.length; i++) inOrder[i] = this.store.at(sorted[i]!);
      this.text = SortedTermText.build(inOrder);
    }
    return this.text;
  }

  /**
   * Ordinals whose key (`keyOf(term)`, e.g. an IP address as 32 hex digits) lies in a range,
   * through a key-sorted array rebuilt when many terms were added since the last build.
   */
  keyRangeOrds(keyOf: (term: string) => string, lo: string | undefined, loInc: boolean, hi: string | undefined, hiInc: boolean): number[] {
    let k = this.keyed;
    const size = this.store.size;
    if (!k || size - k.upto > PENDING_MAX) {
      const keys = Array.from({ length: size }, (_, o) => keyOf(this.store.at(o)));
      const sorted = Uint32Array.from(keys.keys()).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : 0));
      k = this.keyed = { keys, sorted, upto: size };
    }
    const within = (key: string) =>
      (lo === undefined || (loInc ? key >= lo : key > lo)) && (hi === undefined || (hiInc ? key <= hi : key < hi));
    const out: number[] = [];
    const { keys, sorted } = k;
    let a = 0;
    let b = sorted.length;
    if (lo !== undefined) {
      while (a < b) {
        const mid = (a + b) >>> 1;
        if (keys[sorted[mid]!]! < lo) a = mid + 1;
        else b = mid;
      }
    }
    for (let i = a; i < sorted.length; i++) {
      const key = keys[sorted[i]!]!;
      if (hi !== undefined && key > hi) break;
      if (within(key)) out.push(sorted[i]!);
    }
    for (let o = k.upto; o < size; o++) if (within(keyOf(this.store.at(o)))) out.push(o);
    return out;
  }

  /** Ordinals whose term lies in the given string range (undefined bound = open). */
  rangeOrds(lo: string | undefined, loInclusive: boolean, hi: string | undefined, hiInclusive: boolean): number[] {
    const sorted = this.sortedOrds();
    const out: number[] = [];
    const start = lo === undefined ? 0 : this.lowerBound(sorted, lo, !loInclusive);
    for (let i = start; i < sorted.length; i++) {
      const t = this.store.at(sorted[i]!);
      if (hi !== undefined) {
        const c = compareStrings(t, hi);
        if (hiInclusive ? c > 0 : c >= 0) break;
      }
      out.push(sorted[i]!);
    }
    return out;
  }

  trim(): void {
    if (this.pending.length > this.pendingCount + 64) this.pending = this.pending.slice(0, this.pendingCount + 64);
  }

  /** Bytes of the sorted array, the pending list and the substring text. */
  byteSize(): number {
    return this.sorted.byteLength + this.pending.byteLength + (this.text?.byteSize() ?? 0);
  }
}
