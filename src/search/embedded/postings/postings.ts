import { Bitmap, DenseAccumulator } from './bitmap.js';

/** Lists up to this length stay a flat Uint32Array; longer ones become roaring bitmaps. */
export const FLAT_MAX = 2048;

/** Whether `a[from, to)`, sorted ascending, holds `doc` (a binary search). */
export function sortedHas(a: Uint32Array, from: number, to: number, doc: number): boolean {
  let lo = from;
  let hi = to - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = a[mid]!;
    if (v < doc) lo = mid + 1;
    else if (v > doc) hi = mid - 1;
    else return true;
  }
  return false;
}

/**
 * The documents holding one term. Documents are appended in increasing order. Short lists are
 * a flat sorted array, which costs far less than a set of roaring containers; long ones are a
 * `Bitmap`. (A term dictionary keeps its short lists in one `FlatPostings` instead, and hands
 * out lists that are views of it.)
 */
export class PostingList {
  /** The documents are flat[0, n); there is room for cap of them. */
  private flat: Uint32Array | null = new Uint32Array(2);
  private cap = 2;
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
      p.cap = p.flat.length;
      p.n = docs.length;
    }
    return p;
  }

  /** A list whose documents are `bits` (kept, not copied). */
  static ofBitmap(bits: Bitmap): PostingList {
    const p = new PostingList();
    p.bits = bits;
    p.flat = null;
    return p;
  }

  /** The flat documents: the array itself when it holds exactly them, else a view. */
  private sorted(): Uint32Array {
    const flat = this.flat!;
    return flat.length === this.n ? flat : flat.subarray(0, this.n);
  }

  /** The documents, ascending (a copy). */
  docs(): Uint32Array {
    return this.bits ? this.bits.toArray() : this.flat!.slice(0, this.n);
  }

  /** Room for `need` documents in an array of this list's own. */
  private grow(need: number): void {
    const grown = new Uint32Array(need);
    grown.set(this.sorted());
    this.flat = grown;
    this.cap = need;
  }

  append(doc: number): void {
    if (this.bits) {
      this.bits.append(doc);
      return;
    }
    const last = this.n > 0 ? this.flat![this.n - 1]! : -1;
    if (last >= doc) {
      if (last === doc) return;
      throw new Error(`postings must be appended in order (${doc} after ${last})`);
    }
    if (this.n === this.cap) {
      if (this.n >= FLAT_MAX) {
        this.bits = Bitmap.fromSorted(this.sorted());
        this.flat = null;
        this.bits.append(doc);
        return;
      }
      this.grow(Math.max(2, this.cap * 2));
    }
    this.flat![this.n++] = doc;
  }

  has(doc: number): boolean {
    if (this.bits) return this.bits.has(doc);
    return sortedHas(this.flat!, 0, this.n, doc);
  }

  /** The list as a bitmap. It may be the list's own storage: treat it as read-only. */
  toBitmap(): Bitmap {
    return this.bits ?? Bitmap.fromSorted(this.sorted());
  }

  addTo(acc: DenseAccumulator): void {
    if (this.bits) acc.addBitmap(this.bits);
    else acc.addSorted(this.sorted());
  }

  forEach(fn: (doc: number) => void): void {
    if (this.bits) this.bits.forEach(fn);
    else for (let i = 0; i < this.n; i++) fn(this.flat![i]!);
  }

  trim(): void {
    if (this.bits) this.bits.trim();
    else if (this.cap > this.n) this.grow(Math.max(1, this.n));
  }

  byteSize(): number {
    return this.bits ? this.bits.byteSize() : this.cap * 4;
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
