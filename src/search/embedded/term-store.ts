import { compareStrings } from '../../../grammar/patterns.js';

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

/** Any terms, as JS strings with a map back to their ordinals. */
export class StringTerms implements TermStore {
  private readonly terms: string[] = [];
  private readonly ords = new Map<string, number>();

  get size(): number {
    return this.terms.length;
  }

  at(ord: number): string {
    return this.terms[ord]!;
  }

  find(term: string): number {
    return this.ords.get(term) ?? -1;
  }

  add(term: string): number {
    const ord = this.terms.length;
    this.terms.push(term);
    this.ords.set(term, ord);
    return ord;
  }

  compare(a: number, b: number): number {
    return compareStrings(this.terms[a]!, this.terms[b]!);
  }

  /** Every term in ordinal order (the store's own array: read-only). */
  all(): readonly string[] {
    return this.terms;
  }

  trim(): void {
    // nothing is grown ahead
  }

  byteSize(): number {
    // string header and characters, array slot, map entry
    let n = 0;
    for (const t of this.terms) n += t.length + 40;
    return n;
  }
}
