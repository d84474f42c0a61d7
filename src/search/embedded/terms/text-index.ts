import { analyzerFor, sloppyPhraseMatches, type AnalyzedText } from '../../../../grammar/index.js';
import { Bitmap } from '../postings/bitmap.js';
import type { CacheCounts } from '../../../lib/cache-registry.js';
import { TermDictionary } from './term-dictionary.js';
import { u32 } from '../search-memory.js';

/** Position gap between the values of a multi-valued text field (Lucene's default). */
const POSITION_INCREMENT_GAP = 100;

/**
 * Positions of one term: a stream of entries `doc, count, pos₁ … pos_count`, documents
 * ascending, read with a forward cursor during phrase matching.
 */
class PositionStream {
  data: Uint32Array = new Uint32Array(4);
  len = 0;

  push(doc: number, positions: number[]): void {
    const need = this.len + 2 + positions.length;
    if (need > this.data.length) {
      let cap = this.data.length * 2;
      while (cap < need) cap *= 2;
      const next = new Uint32Array(cap);
      next.set(this.data.subarray(0, this.len));
      this.data = next;
    }
    const d = this.data;
    d[this.len++] = doc;
    d[this.len++] = positions.length;
    for (const p of positions) d[this.len++] = p;
  }

  trim(): void {
    if (this.data.length > this.len) this.data = this.data.slice(0, Math.max(4, this.len));
  }
}

class Cursor {
  at = 0;
  constructor(readonly s: PositionStream) {}

  /** Move to `doc`'s entry; returns the offset of its first position and sets `count`. */
  seek(doc: number): number {
    const d = this.s.data;
    while (this.at < this.s.len && d[this.at]! < doc) this.at += 2 + d[this.at + 1]!;
    if (this.at >= this.s.len || d[this.at] !== doc) return -1;
    return this.at + 2;
  }

  count(): number {
    return this.s.data[this.at + 1]!;
  }
}

/** An inverted index with positions over analyzed text, for match and match_phrase. */
export class TextField {
  readonly dict: TermDictionary;
  private readonly positions: PositionStream[] = [];
  readonly analyze: (text: string) => AnalyzedText;

  /** `unionCounts`: where its dictionary counts the hits of its kept unions. */
  constructor(analyzer?: string, unionCounts?: CacheCounts) {
    this.analyze = analyzerFor(analyzer);
    this.dict = new TermDictionary(unionCounts);
  }

  add(doc: number, texts: string[]): void {
    const byOrd = new Map<number, number[]>();
    let base = 0;
    for (const text of texts) {
      const { terms, positions } = this.analyze(text);
      let last = -1;
      for (let i = 0; i < terms.length; i++) {
        const ord = this.dict.intern(terms[i]!);
        if (ord === this.positions.length) this.positions.push(new PositionStream());
        const pos = base + positions[i]!;
        let list = byOrd.get(ord);
        if (!list) byOrd.set(ord, (list = []));
        list.push(pos);
        last = pos;
      }
      if (last >= 0) base = last + 1 + POSITION_INCREMENT_GAP;
    }
    if (byOrd.size === 0) return;
    const ords = [...byOrd.keys()].sort((a, b) => a - b);
    this.dict.addDoc(doc, ords);
    for (const ord of ords) this.positions[ord]!.push(doc, byOrd.get(ord)!);
  }

  /** Documents containing the analyzed tokens of `text` (any, all, or at least `min`). */
  match(text: string, operator: 'or' | 'and', minimumShouldMatch: number, space: number): Bitmap {
    const terms = [...new Set(this.analyze(text).terms)];
    if (terms.length === 0) return new Bitmap();
    const lists = terms.map((t) => this.dict.lookup(t));
    if (operator === 'and' || minimumShouldMatch >= terms.length) {
      let out = lists[0]!;
      for (let i = 1; i < lists.length; i++) out = out.and(lists[i]!);
      return out;
    }
    if (minimumShouldMatch <= 1) {
      const ords = terms.map((t) => this.dict.ordOf(t)).filter((o): o is number => o !== undefined);
      return this.dict.union(ords, space);
    }
    return atLeast(lists, minimumShouldMatch);
  }

  /**
   * Documents containing the analyzed query terms at their relative positions, or, with `slop`,
   * within that many position moves (the evaluator's sloppy-phrase rule).
   */
  phrase(q: AnalyzedText, slop: number, candidates?: Bitmap): Bitmap {
    const { terms, positions } = q;
    const ords: number[] = [];
    for (const t of terms) {
      const o = this.dict.ordOf(t);
      if (o === undefined) return new Bitmap();
      ords.push(o);
    }
    const unique = [...new Set(ords)].sort((a, b) => this.dict.docCount(a) - this.dict.docCount(b));
    let docs: Bitmap | null = null;
    for (const o of unique) {
      const p = this.dict.postingAt(o).toBitmap();
      docs = docs ? docs.and(p) : candidates ? candidates.and(p) : p;
    }
    if (terms.length === 1 || docs!.isEmpty()) return docs!;
    const offsets = positions.map((p) => p - positions[0]!);
    const cursors = unique.map((o) => new Cursor(this.positions[o]!));
    const out: number[] = [];
    const candidateDocs = docs!.toArray(u32(docs!.size));
    const posOf = new Map<number, number[]>();
    for (let c = 0; c < candidateDocs.length; c++) {
      const doc = candidateDocs[c]!;
      for (let u = 0; u < unique.length; u++) {
        const cur = cursors[u]!;
        const at = cur.seek(doc);
        posOf.set(unique[u]!, Array.from(cur.s.data.subarray(at, at + cur.count())));
      }
      if (slop === 0 ? exactPhrase(posOf, ords, offsets) : sloppyPhraseMatches(ords.map((o) => posOf.get(o)!), positions, slop)) out.push(doc);
    }
    return Bitmap.fromSorted(out);
  }

  /** Position stream of one term (entries `doc, count, positions…`), for snapshots. */
  positionData(ord: number): Uint32Array {
    const p = this.positions[ord]!;
    return p.data.subarray(0, p.len);
  }

  /** Restore position streams from a snapshot (one per term ordinal). */
  restorePositions(streams: Uint32Array[]): void {
    this.positions.length = 0;
    for (const data of streams) {
      const p = new PositionStream();
      p.data = data.length > 0 ? data : new Uint32Array(4);
      p.len = data.length;
      this.positions.push(p);
    }
  }

  trim(): void {
    this.dict.trim();
    for (const p of this.positions) p.trim();
  }

  byteSize(): number {
    let n = this.dict.byteSize();
    for (const p of this.positions) n += p.data.byteLength;
    return n;
  }
}

function exactPhrase(posOf: Map<number, number[]>, ords: number[], offsets: number[]): boolean {
  const sets = ords.map((o) => new Set(posOf.get(o)!));
  for (const start of posOf.get(ords[0]!)!) {
    let ok = true;
    for (let i = 1; i < ords.length && ok; i++) ok = sets[i]!.has(start + offsets[i]!);
    if (ok) return true;
  }
  return false;
}

/** Documents in at least `k` of the bitmaps. */
export function atLeast(lists: Bitmap[], k: number): Bitmap {
  if (k <= 0) throw new Error('atLeast needs k ≥ 1');
  if (k > lists.length) return new Bitmap();
  // levels[j]: documents seen in at least j+1 of the lists so far
  const levels: Bitmap[] = [];
  for (const b of lists) {
    for (let j = Math.min(levels.length, k - 1); j >= 0; j--) {
      const below = j === 0 ? b : levels[j - 1]!.and(b);
      levels[j] = levels[j] ? levels[j]!.or(below) : below;
    }
  }
  return levels[k - 1] ?? new Bitmap();
}
