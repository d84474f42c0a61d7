import { compareStrings } from '../../../../grammar/index.js';
import { finalizeHash, FNV_OFFSET, fnvStep } from '../hash.js';
import { StringTerms, type TermStore } from './term-store.js';

/*
 * Content hashes (`sha512_hash`, `orig_sha512_hash`: 128 lowercase hex digits) are a term per
 * image that no other image holds. As JS strings with a map entry each they cost some 190 bytes
 * of heap per term, 380 MB for a million images, and every full garbage collection walks them.
 * Packed two digits a byte in one buffer, with an open-addressing table of ordinals for exact
 * lookup, the same terms take 64 bytes plus 8 to 16 of table, outside the heap.
 */

/** Shorter hex strings are not hashes (ids, colours, words such as "cafe"). */
const MIN_LENGTH = 32;
/** Terms of other shapes tolerated before the store goes back to strings (see `storeFor`). */
const OTHERS_MIN = 16;

function nibble(c: number): number {
  if (c >= 48 && c <= 57) return c - 48; // 0-9
  if (c >= 97 && c <= 102) return c - 87; // a-f
  return -1;
}

function isLowerHex(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (nibble(s.charCodeAt(i)) < 0) return false;
  return true;
}

function hashBytes(b: Uint8Array, start: number, n: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < start + n; i++) h = fnvStep(h, b[i]!);
  return finalizeHash(h);
}

/** Lowercase hex terms of one even length, packed; terms of other shapes are kept as strings. */
export class HexTerms implements TermStore {
  /** Bytes per term. */
  private readonly width: number;
  /**
   * `width` bytes per ordinal, the first digit of each pair in the high nibble, so that byte
   * order is term order. Ordinals of other terms leave their bytes unused.
   */
  private bytes: Uint8Array;
  /** The same memory as a Buffer, whose native hex encoding builds a term back. */
  private view: Buffer;
  /** Open addressing with linear probing: ordinal + 1 of each packed term, 0 when empty. */
  private slots: Int32Array;
  private packedCount = 0;
  private count = 0;
  /** Terms of other shapes, by ordinal and back. */
  private readonly others = new Map<number, string>();
  private readonly otherOrds = new Map<string, number>();
  /**
   * The packed form of the term last looked up or added, and its hash: a new term is looked up
   * and then added, and is packed once for both.
   */
  private readonly key: Uint8Array;
  private keyTerm: string | null = null;
  private keyHash = 0;

  constructor(
    /** Characters of each packed term. */
    readonly length: number,
    capacity = 1024,
  ) {
    this.width = length / 2;
    this.key = new Uint8Array(this.width);
    this.bytes = new Uint8Array(capacity * this.width);
    this.view = Buffer.from(this.bytes.buffer, 0, this.bytes.byteLength);
    this.slots = new Int32Array(2 * capacity);
  }

  /** Whether `term` is worth a packed store of its own: a lowercase hex string of hash length. */
  static fits(term: string): boolean {
    return term.length >= MIN_LENGTH && term.length % 2 === 0 && isLowerHex(term);
  }

  /** A store of `count` terms: `packed` holds `width` bytes each, `others` the rest by ordinal. */
  static fromPacked(length: number, count: number, packed: Uint8Array, others: [number, string][]): HexTerms {
    const store = new HexTerms(length, Math.max(count, 1));
    store.bytes.set(packed.subarray(0, count * store.width));
    store.count = count;
    for (const [ord, term] of others) {
      store.others.set(ord, term);
      store.otherOrds.set(term, ord);
    }
    store.rehash(Math.max(count, 1));
    return store;
  }

  get size(): number {
    return this.count;
  }

  /** Whether `term` would be packed. */
  packs(term: string): boolean {
    return term.length === this.length && isLowerHex(term);
  }

  /**
   * Whether terms of other shapes are a quarter of the store: then it is no field of hashes
   * after all, and each of those terms costs an unused packed slot on top of its string.
   */
  othersOutgrowPacked(): boolean {
    return this.others.size >= OTHERS_MIN && this.others.size * 4 >= this.count;
  }

  at(ord: number): string {
    if (this.others.size > 0) {
      const other = this.others.get(ord);
      if (other !== undefined) return other;
    }
    const start = ord * this.width;
    return this.view.toString('hex', start, start + this.width);
  }

  find(term: string): number {
    if (!this.pack(term)) return this.otherOrds.get(term) ?? -1;
    return this.slots[this.slotOf(this.keyHash)]! - 1;
  }

  add(term: string): number {
    const ord = this.count++;
    if (!this.pack(term)) {
      this.others.set(ord, term);
      this.otherOrds.set(term, ord);
      return ord;
    }
    if ((ord + 1) * this.width > this.bytes.length) this.growBytes(ord + 1);
    this.bytes.set(this.key, ord * this.width);
    if (2 * (this.packedCount + 1) > this.slots.length) this.rehash(this.packedCount + 1);
    this.slots[this.slotOf(this.keyHash)] = ord + 1;
    this.packedCount++;
    return ord;
  }

  compare(a: number, b: number): number {
    if (this.others.size > 0 && (this.others.has(a) || this.others.has(b))) return compareStrings(this.at(a), this.at(b));
    const bytes = this.bytes;
    const w = this.width;
    for (let i = a * w, j = b * w, end = i + w; i < end; i++, j++) {
      if (bytes[i] !== bytes[j]) return bytes[i]! - bytes[j]!;
    }
    return 0;
  }

  /** The packed bytes of every ordinal and the terms of other shapes, for a snapshot. */
  packed(): { bytes: Uint8Array; others: [number, string][] } {
    return { bytes: this.bytes.subarray(0, this.count * this.width), others: [...this.others] };
  }

  /** Give back the room grown ahead of appends (after a bulk load). */
  trim(): void {
    const used = this.count * this.width;
    if (this.bytes.length > used) this.setBytes(this.bytes.slice(0, Math.max(used, this.width)));
  }

  byteSize(): number {
    let n = this.bytes.byteLength + this.slots.byteLength;
    for (const t of this.others.values()) n += t.length + 80;
    return n;
  }

  /**
   * Writes the packed form of `term` to `key` and its hash to `keyHash`; false when the term is
   * not of this store's shape.
   */
  private pack(term: string): boolean {
    if (term === this.keyTerm) return true;
    if (term.length !== this.length) return false;
    const key = this.key;
    this.keyTerm = null;
    for (let i = 0; i < this.width; i++) {
      const hi = nibble(term.charCodeAt(2 * i));
      const lo = nibble(term.charCodeAt(2 * i + 1));
      if (hi < 0 || lo < 0) return false;
      key[i] = (hi << 4) | lo;
    }
    this.keyTerm = term;
    this.keyHash = hashBytes(key, 0, this.width);
    return true;
  }

  /** The slot holding `key`, or the empty slot where it belongs. */
  private slotOf(hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    const { bytes, key, width } = this;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const entry = slots[s]!;
      if (entry === 0) return s;
      let i = (entry - 1) * width;
      let k = 0;
      while (k < width && bytes[i] === key[k]) {
        i++;
        k++;
      }
      if (k === width) return s;
    }
  }

  /** A table with room for `need` packed terms at half load, holding every packed term. */
  private rehash(need: number): void {
    let cap = 16;
    while (cap < 2 * need) cap *= 2;
    const slots = new Int32Array(cap);
    const mask = cap - 1;
    const { bytes, width } = this;
    let packed = 0;
    for (let ord = 0; ord < this.count; ord++) {
      if (this.others.has(ord)) continue;
      let s = hashBytes(bytes, ord * width, width) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = ord + 1;
      packed++;
    }
    this.slots = slots;
    this.packedCount = packed;
  }

  private growBytes(terms: number): void {
    // by half: the buffer reaches 64 MB for a million hashes, and a bulk load ends with a trim
    let cap = Math.max(1024, Math.floor((this.bytes.length / this.width) * 1.5));
    while (cap < terms) cap *= 2;
    const next = new Uint8Array(cap * this.width);
    next.set(this.bytes.subarray(0, this.count * this.width));
    this.setBytes(next);
  }

  private setBytes(bytes: Uint8Array): void {
    this.bytes = bytes;
    this.view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/**
 * The store to add `term` to: an empty dictionary whose first term is a content hash keeps its
 * terms packed; a packed store that mostly receives other terms after all goes back to strings.
 * The choice depends only on the terms in order, so restoring a dictionary from its terms makes
 * the same choice.
 */
export function storeFor(store: TermStore, term: string): TermStore {
  if (store.size === 0 && store instanceof StringTerms && HexTerms.fits(term)) return new HexTerms(term.length);
  if (store instanceof HexTerms && store.othersOutgrowPacked() && !store.packs(term)) {
    const strings = new StringTerms();
    for (let o = 0; o < store.size; o++) strings.add(store.at(o));
    return strings;
  }
  return store;
}

/** A store holding `terms` (in ordinal order), chosen as interning them one by one chooses. */
export function storeOf(terms: Iterable<string>): TermStore {
  let store: TermStore = new StringTerms();
  for (const t of terms) {
    store = storeFor(store, t);
    store.add(t);
  }
  return store;
}
