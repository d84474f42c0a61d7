import { compileWildcard, fuzzyMatcher, fuzzyPrefix, type FuzzyOptions } from '../../../../grammar/index.js';
import { BoundedMap } from '../../../lib/bounded-map.js';
import { CacheCounts, type CacheRegistry } from '../../../lib/cache-registry.js';
import { Bitmap } from '../postings/bitmap.js';
import { storeFor, storeOf } from './hex-terms.js';
import { FlatPostings } from '../postings/flat-postings.js';
import { FLAT_MAX, PostingList, unionPostings } from '../postings/postings.js';
import { outsideSearchMemory } from '../search-memory.js';
import { TermOrder } from './term-order.js';
import { StringTerms, type TermStore } from './term-store.js';

/**
 * Unions of expansions (wildcard, prefix, fuzzy) kept for reuse until the dictionary changes: `art*`
 * is 26,000 lists on a board of 200,000 tags, tens of milliseconds to merge, and `*ony*` reads
 * every term. The most recently used are kept.
 */
const CACHED_UNIONS_MAX = 64;

/**
 * Register the kept unions of every dictionary `dictionaries()` lists (an engine's, over all its
 * indexes: `PhysicalIndex.unionDictionaries`) as one cache; returns the counts its dictionaries
 * are to be made with.
 */
export function registerTermUnions(registry: CacheRegistry, dictionaries: () => readonly TermDictionary[]): CacheCounts {
  return registry.register({
    name: 'engine_term_unions',
    budget: () => ({ entries: CACHED_UNIONS_MAX * dictionaries().length }),
    invalidatedBy: ['a new term in its field (a write adding one, a load)', 'a compaction or reindex of its index'],
    held: () => ({ entries: dictionaries().reduce((n, d) => n + d.keptUnions, 0) }),
  });
}

/** Whether the ascending array holds `x`. */
function sortedHas(a: Uint32Array, x: number): boolean {
  let lo = 0;
  let hi = a.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = a[mid]!;
    if (v === x) return true;
    if (v < x) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The counting sort of a flush: three arrays shared by every dictionary (flushes run one at a
 * time), grown as needed and dropped by `trim`. A bulk load flushes each large dictionary a dozen
 * times; arrays of megabytes allocated afresh every time left the process's memory fragmented.
 */
const scratch: Uint32Array[] = [new Uint32Array(0), new Uint32Array(0), new Uint32Array(0)];

function flushScratch(i: number, length: number): Uint32Array {
  if (scratch[i]!.length < length) scratch[i] = new Uint32Array(Math.max(length, scratch[i]!.length * 2));
  return scratch[i]!.subarray(0, length);
}

/** The numbers ascending, each once. */
function sortedDistinct(xs: number[]): Uint32Array {
  const a = Uint32Array.from(xs).sort();
  let n = 0;
  for (let i = 0; i < a.length; i++) if (i === 0 || a[i] !== a[n - 1]) a[n++] = a[i]!;
  return a.subarray(0, n);
}

/**
 * A term dictionary with one posting list per term: keyword fields, booleans (terms `true` and
 * `false`), ip fields (terms are the address strings as written) and the tokens of text fields.
 *
 * Terms get ordinals in order of first appearance; `TermOrder` (term-order.ts) keeps them in term
 * order for the expansions that read a range of terms.
 */
export class TermDictionary {
  /** The text of the terms by ordinal (packed for content hashes, see `hex-terms.ts`). */
  private store: TermStore = new StringTerms();
  /**
   * What each term holds, by ordinal: its one document (≥ 0), none (-1), or, for a term held by
   * two documents or more, `-2 - s` for its list `s`. A term held by one document (hashes, file
   * names, source URLs: several per image) has no list at all.
   */
  private held: Int32Array = new Int32Array(0);
  /**
   * The lists of terms held by two documents or more: short ones in `flat`, those longer than
   * `FLAT_MAX` as bitmaps in `big` (their `flat` list is left empty). No object per term: a
   * million images hold millions of terms, and objects of their own made every full garbage
   * collection slow.
   */
  private flat = new FlatPostings();
  private big = new Map<number, Bitmap>();
  /**
   * Postings not yet in their lists: (ordinal, document) pairs in document order. Appending to
   * 200,000 lists one posting at a time is a cache miss per posting; a batch is distributed with
   * a counting sort instead, touching each list once. Readers flush first.
   */
  private logOrd: Uint32Array = new Uint32Array(1024);
  private logDoc: Uint32Array = new Uint32Array(1024);
  private logLen = 0;
  /** Documents with at least one term. */
  docs = new Bitmap();
  /** The terms in term order, for prefix, wildcard, fuzzy and range expansions. */
  private order = new TermOrder(this.store);
  /**
   * Bumped by every new term (and a load): cached unions of an older version are stale, since a
   * new term may match their pattern. A new posting of a term they hold is added to them in place
   * (`patchUnions`), so writes to documents do not throw the unions away: one tag change a second
   * made every wildcard query merge its thousands of lists again.
   */
  private version = 0;
  private readonly unions = new BoundedMap<string, { version: number; bits: Bitmap; ords: Uint32Array }>({ maxEntries: CACHED_UNIONS_MAX });

  /** `unionCounts`: where `cachedUnion` counts its hits and misses (shared by an engine's dictionaries). */
  constructor(private readonly unionCounts: CacheCounts = new CacheCounts()) {}

  /** Unions kept, current or not. */
  get keptUnions(): number {
    return this.unions.size;
  }

  get size(): number {
    return this.store.size;
  }

  /** The term of ordinal `ord`. */
  termAt(ord: number): string {
    return this.store.at(ord);
  }

  /** The ordinal of `term`, undefined when no document holds it. */
  ordOf(term: string): number | undefined {
    const ord = this.store.find(term);
    return ord < 0 ? undefined : ord;
  }

  /** The term store, for snapshots (read-only). */
  get termStore(): TermStore {
    return this.store;
  }

  /**
   * Fill an empty dictionary from a snapshot: `terms` are the terms in ordinal order (or a store
   * holding them), the documents of ordinal i are `postings[offsets[i], offsets[i + 1])`;
   * `sorted` holds the ordinals in term order.
   */
  restore(terms: readonly string[] | TermStore, offsets: Uint32Array, postings: Uint32Array, docs: Bitmap, sorted: Uint32Array): void {
    const store = Array.isArray(terms) ? storeOf(terms) : (terms as TermStore);
    this.store = store;
    const size = store.size;
    this.numOrds = new Map();
    this.smallNumOrds = new Int32Array(0);
    this.flat = new FlatPostings();
    this.big = new Map();
    this.held = new Int32Array(size).fill(-1);
    for (let i = 0; i < size; i++) {
      const a = offsets[i]!;
      const b = offsets[i + 1]!;
      if (b - a === 1) this.held[i] = postings[a]!;
      else if (b - a > 1) {
        const s = this.flat.add();
        this.held[i] = -2 - s;
        if (b - a > FLAT_MAX) this.big.set(s, Bitmap.fromSorted(postings.subarray(a, b)));
        else this.flat.appendMany(s, postings, a, b);
      }
    }
    this.flat.trim();
    this.logLen = 0;
    this.docs = docs;
    this.order.restore(store, sorted);
    this.version++;
  }

  /** Ordinals of terms written as JSON numbers, by number (saves building their text). */
  private numOrds = new Map<number, number>();
  /** The same for small non-negative integers (ids): ordinal + 1, 0 when unknown. */
  private smallNumOrds = new Int32Array(0);

  /** Ordinal of the term of a finite number (its canonical text), created if new. */
  internNumber(n: number): number {
    if (n >= 0 && n < 1 << 24 && (n | 0) === n) {
      if (n < this.smallNumOrds.length) {
        const o = this.smallNumOrds[n]!;
        if (o !== 0) return o - 1;
      } else {
        let cap = Math.max(1024, this.smallNumOrds.length * 2);
        while (cap <= n) cap *= 2;
        const next = new Int32Array(cap);
        next.set(this.smallNumOrds);
        this.smallNumOrds = next;
      }
      const ord = this.intern(String(n));
      this.smallNumOrds[n] = ord + 1;
      return ord;
    }
    let ord = this.numOrds.get(n);
    if (ord === undefined) {
      ord = this.intern(String(n));
      this.numOrds.set(n, ord);
    }
    return ord;
  }

  /**
   * The documents of term `ord` as a list: a view of the dictionary's storage (read-only), or
   * built for the call when the term has one document or none.
   */
  postingAt(ord: number): PostingList {
    if (this.logLen > 0) this.flush();
    const h = this.held[ord]!;
    if (h <= -2) {
      const bits = this.big.get(-2 - h);
      return bits !== undefined ? PostingList.ofBitmap(bits) : PostingList.fromSorted(this.flat.view(-2 - h));
    }
    return PostingList.fromSorted(h === -1 ? new Uint32Array(0) : Uint32Array.of(h));
  }

  /** How many documents hold term `ord`. */
  docCount(ord: number): number {
    if (this.logLen > 0) this.flush();
    const h = this.held[ord]!;
    if (h >= -1) return h === -1 ? 0 : 1;
    return this.big.get(-2 - h)?.size ?? this.flat.length(-2 - h);
  }

  /** Calls `fn` with each document holding term `ord`, ascending. */
  forEachDoc(ord: number, fn: (doc: number) => void): void {
    if (this.logLen > 0) this.flush();
    const h = this.held[ord]!;
    if (h >= 0) fn(h);
    else if (h <= -2) {
      const bits = this.big.get(-2 - h);
      if (bits !== undefined) bits.forEach(fn);
      else this.flat.forEach(-2 - h, fn);
    }
  }

  /** The documents holding term `ord`, ascending (a copy). */
  docsOf(ord: number): Uint32Array {
    if (this.logLen > 0) this.flush();
    const h = this.held[ord]!;
    if (h >= -1) return h === -1 ? new Uint32Array(0) : Uint32Array.of(h);
    return this.big.get(-2 - h)?.toArray() ?? this.flat.view(-2 - h).slice();
  }

  /** Add `doc` to the postings of `ord` (after every document it holds; a repeat is dropped). */
  private appendTo(ord: number, doc: number): void {
    const h = this.held[ord]!;
    if (h === -1) this.held[ord] = doc;
    else if (h >= 0) {
      if (h === doc) return;
      if (doc < h) throw new Error(`postings must be appended in order (${doc} after ${h})`);
      const s = this.flat.add();
      this.flat.append(s, h);
      this.flat.append(s, doc);
      this.held[ord] = -2 - s;
    } else {
      const s = -2 - h;
      const bits = this.big.get(s);
      if (bits !== undefined) {
        bits.append(doc);
        return;
      }
      const last = this.flat.last(s);
      if (doc <= last) {
        if (doc === last) return;
        throw new Error(`postings must be appended in order (${doc} after ${last})`);
      }
      if (this.flat.length(s) < FLAT_MAX) this.flat.append(s, doc);
      else this.toBig(s).append(doc);
    }
  }

  /** List `s` as a bitmap from now on (it outgrew the flat lists). */
  private toBig(s: number): Bitmap {
    const bits = Bitmap.fromSorted(this.flat.view(s));
    this.flat.clear(s);
    this.big.set(s, bits);
    return bits;
  }

  /** Move pending postings into their lists (the index's own memory, even inside a search). */
  flush(): void {
    if (this.logLen > 0) outsideSearchMemory(() => this.flushLog());
  }

  private flushLog(): void {
    const n = this.logLen;
    this.logLen = 0;
    const lo = this.logOrd;
    const ld = this.logDoc;
    if (n < 512) {
      for (let i = 0; i < n; i++) this.appendTo(lo[i]!, ld[i]!);
      return;
    }
    const terms = this.store.size;
    const starts = flushScratch(0, terms + 1);
    starts.fill(0);
    for (let i = 0; i < n; i++) starts[lo[i]! + 1]!++;
    for (let o = 0; o < terms; o++) starts[o + 1]! += starts[o]!;
    const at = flushScratch(1, terms);
    at.set(starts.subarray(0, terms));
    const sorted = flushScratch(2, n);
    for (let i = 0; i < n; i++) sorted[at[lo[i]!]!++] = ld[i]!;
    for (let o = 0; o < terms; o++) {
      const a = starts[o]!;
      const b = starts[o + 1]!;
      if (a === b) continue;
      const h = this.held[o]!;
      const s = -2 - h;
      // a whole run at once into a flat list with room for it below FLAT_MAX, else one by one
      if (h <= -2 && this.flat.length(s) + (b - a) <= FLAT_MAX && this.flat.last(s) < sorted[a]! && !this.big.has(s)) {
        this.flat.appendMany(s, sorted, a, b);
      } else for (let i = a; i < b; i++) this.appendTo(o, sorted[i]!);
    }
    if (lo.length > 1 << 16) {
      // a bulk load grows them again; between bulk loads they should not hold megabytes
      this.logOrd = new Uint32Array(1024);
      this.logDoc = new Uint32Array(1024);
    }
  }

  /** Ordinal of `term`, created if new. */
  intern(term: string): number {
    let ord = this.store.find(term);
    if (ord < 0) {
      this.store = storeFor(this.store, term);
      ord = this.store.add(term);
      if (ord >= this.held.length) {
        const held = new Int32Array(Math.max(1024, this.held.length * 2)).fill(-1);
        held.set(this.held);
        this.held = held;
      }
      this.order.added(this.store, ord);
      this.version++;
    }
    return ord;
  }

  /** Record that `doc` holds the term `ord` (documents come in increasing order; repeats are fine). */
  addOne(doc: number, ord: number): void {
    if (this.logLen === this.logOrd.length) {
      if (this.logLen >= 1 << 21) this.flush();
      else {
        const o = new Uint32Array(this.logOrd.length * 2);
        o.set(this.logOrd);
        const d = new Uint32Array(this.logDoc.length * 2);
        d.set(this.logDoc);
        this.logOrd = o;
        this.logDoc = d;
      }
    }
    this.logOrd[this.logLen] = ord;
    this.logDoc[this.logLen++] = doc;
    this.docs.append(doc);
    if (this.unions.size > 0) this.patchUnions(doc, [ord]);
  }

  /** Record that `doc` holds these term ordinals (documents are added in increasing order). */
  addDoc(doc: number, ords: ArrayLike<number>): void {
    if (ords.length === 0) return;
    const need = this.logLen + ords.length;
    if (need > this.logOrd.length) {
      if (this.logLen >= 1 << 21) this.flush();
      if (this.logLen + ords.length > this.logOrd.length) {
        let cap = this.logOrd.length * 2;
        while (cap < this.logLen + ords.length) cap *= 2;
        const o = new Uint32Array(cap);
        o.set(this.logOrd.subarray(0, this.logLen));
        const d = new Uint32Array(cap);
        d.set(this.logDoc.subarray(0, this.logLen));
        this.logOrd = o;
        this.logDoc = d;
      }
    }
    const lo = this.logOrd;
    const ld = this.logDoc;
    let k = this.logLen;
    for (let i = 0; i < ords.length; i++) {
      lo[k] = ords[i]!;
      ld[k++] = doc;
    }
    this.logLen = k;
    this.docs.append(doc);
    if (this.unions.size > 0) this.patchUnions(doc, ords);
  }

  /** Add `doc` to the cached unions that hold one of its terms. */
  private patchUnions(doc: number, ords: ArrayLike<number>): void {
    for (const u of this.unions.values()) {
      if (u.version !== this.version) continue;
      for (let i = 0; i < ords.length; i++) {
        if (sortedHas(u.ords, ords[i]!)) {
          u.bits.add(doc);
          break;
        }
      }
    }
  }

  postingsOf(term: string): PostingList | undefined {
    const ord = this.store.find(term);
    return ord < 0 ? undefined : this.postingAt(ord);
  }

  /** Documents holding `term`. Read-only: it may be the index's own storage. */
  lookup(term: string): Bitmap {
    return this.postingsOf(term)?.toBitmap() ?? new Bitmap();
  }

  /** Documents holding any of `ords`. */
  union(ords: readonly number[] | Uint32Array, space: number): Bitmap {
    if (this.logLen > 0) this.flush();
    const lists: PostingList[] = [];
    const solos: number[] = [];
    for (const o of ords) {
      const h = this.held[o]!;
      if (h <= -2) lists.push(this.postingAt(o));
      else if (h !== -1) solos.push(h);
    }
    if (solos.length > 0) lists.push(PostingList.fromSorted(sortedDistinct(solos)));
    return unionPostings(lists, space);
  }

  /** The union `cachedUnion` keeps under `key`, if it is kept and current; nothing is built. */
  keptUnion(key: string): Bitmap | undefined {
    const hit = this.unions.peek(key);
    return hit !== undefined && hit.version === this.version ? hit.bits : undefined;
  }

  /**
   * `union(expand())`, reused while no term was added since (postings added since are patched
   * in): `key` names the expansion (e.g. the query kind and pattern). Read-only, like `lookup`.
   */
  cachedUnion(key: string, expand: () => number[], space: number): Bitmap {
    const hit = this.unions.get(key);
    if (hit !== undefined && hit.version === this.version) {
      this.unionCounts.hit();
      return hit.bits;
    }
    this.unionCounts.miss();
    const ords = sortedDistinct(expand());
    const bits = outsideSearchMemory(() => this.union(ords, space));
    this.unions.set(key, { version: this.version, bits, ords });
    return bits;
  }

  /** Ordinals sorted by term. */
  sortedOrds(): Uint32Array {
    return this.order.sortedOrds();
  }

  /** Rank of each ordinal in term order (for sorting documents by a keyword field). */
  rankOf(): Int32Array {
    return this.order.rankOf();
  }

  prefixOrds(prefix: string, caseInsensitive = false): number[] {
    if (caseInsensitive) return this.matchingOrds((t) => t.toLowerCase().startsWith(prefix.toLowerCase()));
    const out: number[] = [];
    this.order.forPrefix(prefix, (o) => out.push(o));
    return out;
  }

  wildcardOrds(pattern: string, caseInsensitive = false): number[] {
    if (caseInsensitive) return this.matchingOrds(compileWildcard(pattern, true));
    return this.order.wildcardOrds(pattern);
  }

  /** Terms within `maxEdits` of `value` that share its first `prefixLength` characters. */
  fuzzyOrds(value: string, options: FuzzyOptions): number[] {
    const out: number[] = [];
    const matches = fuzzyMatcher(value, options);
    this.order.forPrefix(fuzzyPrefix(value, options.prefixLength), (o) => {
      if (matches(this.store.at(o))) out.push(o);
    });
    return out;
  }

  /**
   * Ordinals whose key (`keyOf(term)`, e.g. an IP address as 32 hex digits) lies in a range,
   * through a key-sorted array rebuilt when many terms were added since the last build.
   */
  keyRangeOrds(keyOf: (term: string) => string, lo: string | undefined, loInc: boolean, hi: string | undefined, hiInc: boolean): number[] {
    return this.order.keyRangeOrds(keyOf, lo, loInc, hi, hiInc);
  }

  /** Ordinals whose term lies in the given string range (undefined bound = open). */
  rangeOrds(lo: string | undefined, loInclusive: boolean, hi: string | undefined, hiInclusive: boolean): number[] {
    return this.order.rangeOrds(lo, loInclusive, hi, hiInclusive);
  }

  matchingOrds(pred: (term: string) => boolean): number[] {
    const out: number[] = [];
    for (let o = 0; o < this.store.size; o++) if (pred(this.store.at(o))) out.push(o);
    return out;
  }

  trim(): void {
    if (this.logLen > 0) this.flush();
    this.flat.trim();
    for (const bits of this.big.values()) bits.trim();
    const size = this.store.size;
    if (this.held.length > size) this.held = this.held.slice(0, size);
    this.order.trim();
    this.logOrd = new Uint32Array(1024);
    this.logDoc = new Uint32Array(1024);
    scratch.fill(new Uint32Array(0));
    this.docs.trim();
    this.store.trim();
  }

  byteSize(): number {
    const b = this.byteSizes();
    return b.terms + b.postings + b.other;
  }

  /** Bytes by part: term text and lookup, posting lists, the rest (orders, caches, buffers). */
  byteSizes(): { terms: number; postings: number; other: number } {
    if (this.logLen > 0) this.flush();
    let postings = this.held.byteLength + this.docs.byteSize() + this.flat.byteSize();
    for (const bits of this.big.values()) postings += bits.byteSize() + 48;
    let other = this.order.byteSize() + this.logOrd.byteLength * 2;
    for (const u of this.unions.values()) other += u.bits.byteSize();
    return { terms: this.store.byteSize(), postings, other };
  }
}
