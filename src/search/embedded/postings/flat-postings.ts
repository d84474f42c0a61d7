import type { DenseAccumulator } from './bitmap.js';
import { sortedHas } from './postings.js';

/**
 * Many short posting lists (ascending document numbers) in one array: list `s` is
 * `pool[at[s], at[s] + len[s])` with room for `cap[s]`. A term dictionary keeps its Zipf tail
 * here. One typed array per list cost some 180 bytes of heap objects besides its documents, and
 * while a board was indexed each of millions of lists was reallocated again and again as it
 * grew: gigabytes of short-lived buffers that left the process's memory fragmented after the
 * build. Here a list that outgrows its room moves to the end of the pool (its old room becomes
 * a hole), and the pool is packed when it fills up with holes.
 */
export class FlatPostings {
  private pool: Uint32Array = new Uint32Array(1024);
  /** End of the used part of the pool. */
  private end = 0;
  /** Room held by lists (used + spare); `end - held` is holes. */
  private held = 0;
  private at: Uint32Array = new Uint32Array(64);
  private len: Uint32Array = new Uint32Array(64);
  private cap: Uint32Array = new Uint32Array(64);
  /** Lists created (slot numbers are dense). */
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** A new empty list; returns its slot. */
  add(): number {
    if (this.count === this.at.length) {
      const n = Math.max(64, this.at.length * 2);
      this.at = grow(this.at, n);
      this.len = grow(this.len, n);
      this.cap = grow(this.cap, n);
    }
    return this.count++;
  }

  /** Documents in list `s`. */
  length(s: number): number {
    return this.len[s]!;
  }

  /** The documents of list `s`: a view, valid until the next change. */
  view(s: number): Uint32Array {
    const a = this.at[s]!;
    return this.pool.subarray(a, a + this.len[s]!);
  }

  /** The last document of list `s` (−1 when empty). */
  last(s: number): number {
    const n = this.len[s]!;
    return n === 0 ? -1 : this.pool[this.at[s]! + n - 1]!;
  }

  /** Append `doc`, greater than every document of list `s`. */
  append(s: number, doc: number): void {
    const n = this.len[s]!;
    if (n === this.cap[s]) this.reserve(s, Math.max(2, n * 2));
    this.pool[this.at[s]! + n] = doc;
    this.len[s] = n + 1;
  }

  /** Append src[from, to) (ascending, after every document of list `s`; repeats are dropped). */
  appendMany(s: number, src: Uint32Array, from: number, to: number): void {
    const need = this.len[s]! + (to - from);
    // batches arrive with their exact size: a little slack is enough
    if (need > this.cap[s]!) this.reserve(s, need + (need >> 3) + 2);
    const pool = this.pool;
    const start = this.at[s]!;
    let k = start + this.len[s]!;
    let last = k > start ? pool[k - 1]! : -1;
    for (let i = from; i < to; i++) {
      const d = src[i]!;
      if (d !== last) pool[k++] = last = d;
    }
    this.len[s] = k - start;
  }

  /** Empty list `s` and give its room back (a list that became a bitmap). */
  clear(s: number): void {
    this.held -= this.cap[s]!;
    this.len[s] = 0;
    this.cap[s] = 0;
    this.at[s] = 0;
  }

  has(s: number, doc: number): boolean {
    const from = this.at[s]!;
    return sortedHas(this.pool, from, from + this.len[s]!, doc);
  }

  forEach(s: number, fn: (doc: number) => void): void {
    const a = this.pool;
    for (let i = this.at[s]!, end = i + this.len[s]!; i < end; i++) fn(a[i]!);
  }

  addTo(s: number, acc: DenseAccumulator): void {
    const a = this.pool;
    const w = acc.words;
    for (let i = this.at[s]!, end = i + this.len[s]!; i < end; i++) {
      const v = a[i]!;
      w[v >>> 5]! |= 1 << (v & 31);
    }
  }

  /** Room for `room` documents in list `s`: in place when it ends the pool, else at the end. */
  private reserve(s: number, room: number): void {
    const old = this.cap[s]!;
    const start = this.at[s]!;
    if (old > 0 && start + old === this.end && start + room <= this.pool.length) {
      this.end = start + room;
      this.held += room - old;
      this.cap[s] = room;
      return;
    }
    if (this.end + room > this.pool.length) this.makeRoom(room);
    const at = this.end;
    this.pool.copyWithin(at, this.at[s]!, this.at[s]! + this.len[s]!);
    this.at[s] = at;
    this.held += room - this.cap[s]!;
    this.cap[s] = room;
    this.end = at + room;
  }

  /** Room for `extra` more at the end: the lists packed when holes are half the pool, else a larger pool. */
  private makeRoom(extra: number): void {
    const holes = this.end - this.held;
    const size = this.held + extra;
    const length = holes * 2 >= this.end ? Math.max(this.pool.length, size + (size >> 1)) : Math.max(size * 2, this.pool.length * 2);
    this.repack(length, false);
  }

  /** Copy the lists, in slot order, into a pool of `length`; `exact` drops their spare room. */
  private repack(length: number, exact: boolean): void {
    const pool = new Uint32Array(length);
    let k = 0;
    for (let s = 0; s < this.count; s++) {
      const n = this.len[s]!;
      const room = exact ? n : this.cap[s]!;
      if (room === 0) {
        this.at[s] = 0;
        continue;
      }
      pool.set(this.pool.subarray(this.at[s]!, this.at[s]! + n), k);
      this.at[s] = k;
      this.cap[s] = room;
      k += room;
    }
    this.pool = pool;
    this.end = k;
    this.held = k;
  }

  /** Give back every spare room and hole (after a bulk load). */
  trim(): void {
    let total = 0;
    for (let s = 0; s < this.count; s++) total += this.len[s]!;
    if (total === this.end && this.pool.length === total && this.at.length === this.count) return;
    this.repack(total, true);
    this.at = this.at.slice(0, this.count);
    this.len = this.len.slice(0, this.count);
    this.cap = this.cap.slice(0, this.count);
  }

  byteSize(): number {
    return this.pool.byteLength + this.at.byteLength + this.len.byteLength + this.cap.byteLength;
  }
}

function grow(a: Uint32Array, n: number): Uint32Array {
  const next = new Uint32Array(n);
  next.set(a);
  return next;
}
