import { Bitmap, DenseAccumulator } from './bitmap.js';

/** Lists up to this length stay a flat Uint32Array; longer ones become roaring bitmaps. */
const FLAT_MAX = 2048;

/**
 * The documents holding one term. Documents are appended in increasing order. Short lists
 * (the long Zipf tail of a tag dictionary) are a flat sorted Uint32Array, which costs far less
 * than a set of roaring containers; long ones are a `Bitmap`.
 */
export class PostingList {
  private flat: Uint32Array | null = new Uint32Array(2);
  private n = 0;
  private bits: Bitmap | null = null;

  get size(): number {
    return this.bits ? this.bits.size : this.n;
  }

  /** A list holding exactly `docs` (ascending, distinct); a short array is kept, not copied. */
  static fromSorted(docs: Uint32Array): PostingList {
    const p = new PostingList();
    if (docs.length > FLAT_MAX) {
      p.bits = Bitmap.fromSorted(docs);
      p.flat = null;
    } else {
      p.flat = docs.length > 0 ? docs : new Uint32Array(2);
      p.n = docs.length;
    }
    return p;
  }

  /** The documents, ascending (a copy). */
  docs(): Uint32Array {
    return this.bits ? this.bits.toArray() : this.flat!.slice(0, this.n);
  }

  append(doc: number): void {
    if (this.bits) {
      this.bits.append(doc);
      return;
    }
    let flat = this.flat!;
    if (this.n > 0 && flat[this.n - 1]! >= doc) {
      if (flat[this.n - 1] === doc) return;
      throw new Error(`postings must be appended in order (${doc} after ${flat[this.n - 1]})`);
    }
    if (this.n === flat.length) {
      if (this.n >= FLAT_MAX) {
        this.bits = Bitmap.fromSorted(flat, this.n);
        this.flat = null;
        this.bits.append(doc);
        return;
      }
      const grown = new Uint32Array(flat.length * 2);
      grown.set(flat);
      this.flat = flat = grown;
    }
    flat[this.n++] = doc;
  }

  /** Append src[start, end) (non-decreasing, after every document present; repeats are dropped). */
  appendMany(src: Uint32Array, start: number, end: number): void {
    const count = end - start;
    let flat = this.flat;
    if (this.bits || !flat || this.n + count > FLAT_MAX || (this.n > 0 && flat[this.n - 1]! >= src[start]!)) {
      for (let i = start; i < end; i++) this.append(src[i]!);
      return;
    }
    const need = this.n + count;
    if (need > flat.length) {
      // batches arrive with their exact size: a little slack is enough
      const grown = new Uint32Array(Math.min(FLAT_MAX, need + (need >> 3) + 2));
      grown.set(flat.subarray(0, this.n));
      this.flat = flat = grown;
    }
    let n = this.n;
    let last = -1;
    for (let i = start; i < end; i++) {
      const d = src[i]!;
      if (d !== last) flat[n++] = last = d;
    }
    this.n = n;
  }

  has(doc: number): boolean {
    if (this.bits) return this.bits.has(doc);
    const a = this.flat!;
    let lo = 0;
    let hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = a[mid]!;
      if (v < doc) lo = mid + 1;
      else if (v > doc) hi = mid - 1;
      else return true;
    }
    return false;
  }

  /** The list as a bitmap. It may be the list's own storage: treat it as read-only. */
  toBitmap(): Bitmap {
    return this.bits ?? Bitmap.fromSorted(this.flat!, this.n);
  }

  addTo(acc: DenseAccumulator): void {
    if (this.bits) acc.addBitmap(this.bits);
    else acc.addSorted(this.flat!, this.n);
  }

  forEach(fn: (doc: number) => void): void {
    if (this.bits) this.bits.forEach(fn);
    else for (let i = 0; i < this.n; i++) fn(this.flat![i]!);
  }

  trim(): void {
    if (this.bits) this.bits.trim();
    else if (this.flat!.length > this.n) this.flat = this.flat!.slice(0, Math.max(1, this.n));
  }

  byteSize(): number {
    return this.bits ? this.bits.byteSize() : this.flat!.byteLength;
  }
}

/** Union of posting lists (`space`: one more than the largest document number). */
export function unionPostings(lists: PostingList[], space: number): Bitmap {
  if (lists.length === 0) return new Bitmap();
  if (lists.length === 1) return lists[0]!.toBitmap();
  if (lists.length <= 4) {
    let out = lists[0]!.toBitmap();
    for (let i = 1; i < lists.length; i++) out = out.or(lists[i]!.toBitmap());
    return out;
  }
  const acc = new DenseAccumulator(space);
  for (const l of lists) l.addTo(acc);
  return acc.toBitmap();
}
