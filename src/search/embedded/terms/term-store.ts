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

function hashString(s: string): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = fnvStep(h, s.charCodeAt(i));
  return finalizeHash(h);
}

/**
 * Any terms, as JS strings, with an open-addressing table of ordinals to find them. A `Map`
 * would cost some 30 to 50 bytes of heap per term more than the table's 8 to 16, and its
 * backing array is a million tagged slots for every garbage collection to walk on a large
 * board.
 */
export class StringTerms implements TermStore {
  private readonly terms: string[] = [];
  /** Linear probing: ordinal + 1 of each term, 0 when empty; at most half full. */
  private slots = new Int32Array(16);

  get size(): number {
    return this.terms.length;
  }

  at(ord: number): string {
    return this.terms[ord]!;
  }

  find(term: string): number {
    return this.slots[this.slotOf(term, hashString(term))]! - 1;
  }

  add(term: string): number {
    const ord = this.terms.length;
    this.terms.push(term);
    if (2 * this.terms.length > this.slots.length) this.rehash();
    else this.slots[this.slotOf(term, hashString(term))] = ord + 1;
    return ord;
  }

  compare(a: number, b: number): number {
    return compareStrings(this.terms[a]!, this.terms[b]!);
  }

  trim(): void {
    // nothing is grown ahead
  }

  byteSize(): number {
    // string header and characters, array slot
    let n = this.slots.byteLength;
    for (const t of this.terms) n += t.length + 24;
    return n;
  }

  /** The slot holding `term`, or the empty slot where it belongs. */
  private slotOf(term: string, hash: number): number {
    const { slots, terms } = this;
    const mask = slots.length - 1;
    for (let s = hash & mask; ; s = (s + 1) & mask) {
      const entry = slots[s]!;
      if (entry === 0 || terms[entry - 1] === term) return s;
    }
  }

  /** A table twice as large, holding every term. */
  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    const terms = this.terms;
    for (let ord = 0; ord < terms.length; ord++) {
      let s = hashString(terms[ord]!) & mask;
      while (slots[s] !== 0) s = (s + 1) & mask;
      slots[s] = ord + 1;
    }
    this.slots = slots;
  }
}
