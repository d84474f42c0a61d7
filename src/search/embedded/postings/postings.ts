import { Bitmap, DenseAccumulator } from './bitmap.js';

/** Lists up to this length stay a flat Uint32Array; longer ones become roaring bitmaps. */
const FLAT_MAX = 2048;

/**
 * The documents holding one term. Documents are appended in increasing order. Short lists
 * (the long Zipf tail of a tag dictionary) are a flat sorted array, which costs far less
 * than a set of roaring containers; long ones are a `Bitmap`.
 *
 * A flat list either owns its array or, after `compact`, is a range of one array shared by
 * every short list of a dictionary: an array of its own costs some 180 bytes of heap objects
 * besides its documents, several times the documents of a typical tail tag.
 */
export class PostingList {
  /** The documents are flat[start, start + n); there is room for cap of them. */
  private flat: Uint32Array | null = new Uint32Array(2);
  private start = 0;
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

  /**
   * Move the flat lists among `lists` into one shared array with no room left (an append then
   * copies that list out to an array of its own), and trim the bitmaps.
   */
  static compact(lists: readonly PostingList[]): void {
    let total = 0;
    for (const p of lists) if (!p.bits) total += p.n;
    const shared = new Uint32Array(total);
    let at = 0;
    for (const p of lists) {
      if (p.bits) {
        p.bits.trim();
        continue;
      }
      // element by element: most lists are a few documents, less than a view of them costs
      const flat = p.flat!;
      for (let i = 0; i < p.n; i++) shared[at + i] = flat[p.start + i]!;
      p.flat = shared;
      p.start = at;
      p.cap = p.n;
      at += p.n;
    }
  }

  /** The flat documents: the array itself when it holds exactly them, else a view. */
  private sorted(): Uint32Array {
    const flat = this.flat!;
    return this.start === 0 && flat.length === this.n ? flat : flat.subarray(this.start, this.start + this.n);
  }

  /** The documents, ascending (a copy). */
  docs(): Uint32Array {
    return this.bits ? this.bits.toArray() : this.flat!.slice(this.start, this.start + this.n);
  }

  /** Room for `need` documents in an array of this list's own. */
  private grow(need: number): void {
    const grown = new Uint32Array(need);
    grown.set(this.sorted());
    this.flat = grown;
    this.start = 0;
    this.cap = need;
  }

  append(doc: number): void {
    if (this.bits) {
      this.bits.append(doc);
      return;
    }
    const last = this.n > 0 ? this.flat![this.start + this.n - 1]! : -1;
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
    this.flat![this.start + this.n++] = doc;
  }

  /** Append src[start, end) (non-decreasing, after every document present; repeats are dropped). */
  appendMany(src: Uint32Array, start: number, end: number): void {
    const count = end - start;
    if (this.bits || this.n + count > FLAT_MAX || (this.n > 0 && this.flat![this.start + this.n - 1]! >= src[start]!)) {
      for (let i = start; i < end; i++) this.append(src[i]!);
      return;
    }
    const need = this.n + count;
    // batches arrive with their exact size: a little slack is enough
    if (need > this.cap) this.grow(Math.min(FLAT_MAX, need + (need >> 3) + 2));
    const flat = this.flat!;
    let k = this.start + this.n;
    let last = -1;
    for (let i = start; i < end; i++) {
      const d = src[i]!;
      if (d !== last) flat[k++] = last = d;
    }
    this.n = k - this.start;
  }

  has(doc: number): boolean {
    if (this.bits) return this.bits.has(doc);
    const a = this.flat!;
    let lo = this.start;
    let hi = this.start + this.n - 1;
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
    return this.bits ?? Bitmap.fromSorted(this.sorted());
  }

  addTo(acc: DenseAccumulator): void {
    if (this.bits) acc.addBitmap(this.bits);
    else acc.addSorted(this.sorted());
  }

  forEach(fn: (doc: number) => void): void {
    if (this.bits) this.bits.forEach(fn);
    else for (let i = this.start, end = this.start + this.n; i < end; i++) fn(this.flat![i]!);
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
