import { compareStrings } from '../../../../grammar/index.js';
import { finalizeHash, FNV_OFFSET, fnvStep } from '../hash.js';

/**
 * The terms of a dictionary by ordinal (ordinals are dense, in order of first appearance), with
 * exact lookup. Posting lists, term order and expansions live in the dictionary; a store only
 * keeps the text, so a field whose terms have a known shape can keep them compactly.
 */
export interface TermStore {
  readonly size: number;
  /** The term of `ord`. */
  at(ord: number): string;
  /** Ordinal of `term`, -1 when absent. */
  find(term: string): number;
  /** Store a term that `find` does not know; returns its ordinal (the current size). */
  add(term: string): number;
  /** `compareStrings(at(a), at(b))`, without building the strings where the store can. */
  compare(a: number, b: number): number;
  /** Give back the room grown ahead of appends (after a bulk load). */
  trim(): void;
  byteSize(): number;
}

/** FNV over the UTF-16 code units; `latin1` is set to whether every unit is below 256. */
function hashString(s: string): number {
  let h = FNV_OFFSET;
  let high = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    high |= c;
    h = fnvStep(h, c);
  }
  latin1 = high < 256;
  return finalizeHash(h);
}

/** Set by `hashString`: whether the string it hashed last fits one byte a character. */
let latin1 = true;

/**
 * Any terms, with an open-addressing table of ordinals to find them. Terms whose characters all
 * fit a byte (user names, file names, addresses, URLs: nearly all of them) are packed one byte
 * a character into one buffer; the others are kept as strings. A JS string per term cost some
 * 30 bytes of heap besides its characters, and a large board holds millions of such terms
 * (a file name and an address per image), every one an object for each full garbage collection
 * to visit.
 */
export class StringTerms implements TermStore {
  /** Term `o` is bytes[starts[o], starts[o + 1]) unless it is in `others`. */
  private bytes: Uint8Array = new Uint8Array(1024);
  /** The same memory as a Buffer, whose native latin1 decoding builds a term back. */
  private view: Buffer = Buffer.from(this.bytes.buffer);
  private starts: Uint32Array = new Uint32Array(64);
  private count = 0;
  /** Terms with a character past 255, by ordinal. */
  private readonly others = new Map<number, string>();
  /** Linear probing: ordinal + 1 of each term, 0 when empty; at most half full. */
  private slots = new Int32Array(16);

  get size(): number {
    return this.count;
  }

  at(ord: number): string {
    if (this.others.size > 0) {
      const other = this.others.get(ord);
      if (other !== undefined) return other;
    }
    return this.view.toString('latin1', this.starts[ord]!, this.starts[ord + 1]!);
  }

  find(term: string): number {
    return this.slots[this.slotOf(term, hashString(term), latin1)]! - 1;
  }

  add(term: string): number {
    const ord = this.count;
    const hash = hashString(term);
    const packed = latin1;
    if (ord + 2 > this.starts.length) this.starts = grownU32(this.starts, ord + 2);
    const start = this.starts[ord]!;
    if (packed) {
      if (start + term.length > this.bytes.length) this.setBytes(start + term.length);
      const b = this.bytes;
      for (let i = 0; i < term.length; i++) b[start + i] = term.charCodeAt(i);
      this.starts[ord + 1] = start + term.length;
    } else {
      this.others.set(ord, term);
      this.starts[ord + 1] = start;
    }
    this.count++;
    if (2 * this.count > this.slots.length) this.rehash();
    else this.slots[this.slotOf(term, hash, packed)] = ord + 1;
    return ord;
  }

  compare(a: number, b: number): number {
    if (this.others.size > 0 && (this.others.has(a) || this.others.has(b))) return compareStrings(this.at(a), this.at(b));
    // one byte a character below 256: byte order is compareStrings' order
    const bytes = this.bytes;
    let i = this.starts[a]!;
    let j = this.starts[b]!;
    const endA = this.starts[a + 1]!;
    const endB = this.starts[b + 1]!;
    for (; i < endA && j < endB; i++, j++) if (bytes[i] !== bytes[j]) return bytes[i]! - bytes[j]!;
    return endA - i - (endB - j);
  }

  trim(): void {
    const used = this.starts[this.count]!;
    if (this.bytes.length > used) this.setBytes(used, true);
    if (this.starts.length > this.count + 1) this.starts = this.starts.slice(0, this.count + 1);
  }

  byteSize(): number {
    // characters, offsets and table; a string kept whole: header and characters, map entry
    let n = this.bytes.byteLength + this.starts.byteLength + this.slots.byteLength;
    for (const t of this.others.values()) n += 2 * t.length + 80;
    return n;
  }

  /** Whether term `ord` is `term` (`packed`: `term` fits one byte a character). */
  private holds(ord: number, term: string, packed: boolean): boolean {
    const other = this.others.size > 0 ? this.others.get(ord) : undefined;
    if (other !== undefined || !packed) return other === term;
    const start = this.starts[ord]!;
    if (this.starts[ord + 1]! - start !== term.length) return false;
    const b = this.bytes;
    for (let i = 0; i < term.length; i++) if (b[start + i] !== term.charCodeAt(i)) return false;
    return true;
  }

  /** The slot holding `term`, or the empty slot where it belongs. */
  private slotOf(term: string, hash: number, packed: boolean): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const entry = slots[s]!;
      if (entry === 0 || this.holds(entry - 1, term, packed)) return s;
    }
  }

  /** A table twice as large, holding every term. */
  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    const { bytes, starts, others } = this;
    for (let ord = 0; ord < this.count; ord++) {
      const other = others.size > 0 ? others.get(ord) : undefined;
      let h = FNV_OFFSET;
      // the hash of a packed term from its bytes: each byte is its character's code
      if (other === undefined) for (let i = starts[ord]!, end = starts[ord + 1]!; i < end; i++) h = fnvStep(h, bytes[i]!);
      let s = (other === undefined ? finalizeHash(h) : hashString(other)) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = ord + 1;
    }
    this.slots = slots;
  }

  /** A buffer of room for `need` bytes (by half again when growing; exactly when trimming). */
  private setBytes(need: number, exact = false): void {
    let cap = exact ? need : Math.max(1024, Math.floor(this.bytes.length * 1.5));
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.bytes.subarray(0, Math.min(this.starts[this.count]!, cap)));
    this.bytes = next;
    this.view = Buffer.from(next.buffer, next.byteOffset, next.byteLength);
  }
}

function grownU32(a: Uint32Array, need: number): Uint32Array {
  let cap = a.length * 2;
  while (cap < need) cap *= 2;
  const next = new Uint32Array(cap);
  next.set(a);
  return next;
}
