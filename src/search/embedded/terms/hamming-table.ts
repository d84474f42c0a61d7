/**
 * Multi-index hashing (Norouzi, Punjani and Fleet, 2012) over the terms of a keyword dictionary
 * that hold 64-bit hashes as 16 lowercase hex digits: "which hashes lie within Hamming distance d
 * of h?" without comparing h with every hash.
 *
 * The 64 bits are cut into four 16-bit chunks. When two hashes differ in at most d bits, one of
 * the four chunks differs in at most ⌊d/4⌋ bits (pigeonhole). So for each chunk, every value within
 * ⌊d/4⌋ bits of the query's chunk is looked up in a table of that chunk (value → term ordinals),
 * and only the terms found are compared in full. For d = 10 that is 4 × 137 lookups; a random
 * hash shares a given chunk value with one term in 65,536, so a million terms give some eight
 * thousand candidates to compare, against a million for a scan. When the lookups would not be
 * cheaper than the scan (large d), the terms are scanned.
 *
 * Terms are appended to the dictionary and never renumbered, so the tables grow by a tail: terms
 * added since the last build are compared one by one, and the tables are rebuilt once the tail is
 * an eighth of what they hold. Terms that are not 16 hex digits are ignored.
 */
import { popcount32 } from '../../../lib/popcount.js';
import type { TermDictionary } from './term-dictionary.js';

const CHUNKS = 4;
const CHUNK_VALUES = 1 << 16;
const MIN_TAIL = 4096;

/** Every 16-bit mask, fewest bits first, and how many masks have at most w bits set. */
const MASKS = new Uint16Array(CHUNK_VALUES);
const UP_TO_WEIGHT = new Uint32Array(17);
{
  const weight = (x: number) => popcount32(x);
  const byWeight = Array.from({ length: CHUNK_VALUES }, (_, x) => x).sort((a, b) => weight(a) - weight(b) || a - b);
  MASKS.set(byWeight);
  for (const x of byWeight) UP_TO_WEIGHT[weight(x)]!++;
  for (let w = 1; w <= 16; w++) UP_TO_WEIGHT[w]! += UP_TO_WEIGHT[w - 1]!;
}


const HEX64 = /^[0-9a-f]{16}$/;

/** The two 32-bit halves of a 16-digit hex hash, or null when it is not one. */
export function parseHash64(text: string): [number, number] | null {
  if (!HEX64.test(text)) return null;
  return [parseInt(text.slice(0, 8), 16) >>> 0, parseInt(text.slice(8), 16) >>> 0];
}

function chunkOf(hi: number, lo: number, j: number): number {
  return j < 2 ? (hi >>> (16 * (1 - j))) & 0xffff : (lo >>> (16 * (3 - j))) & 0xffff;
}

export class HammingTable {
  /** The hash of each term ordinal (valid[ord] = 0: not a hash). */
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private valid = new Uint8Array(1024);
  /** Ordinals parsed so far, and ordinals the chunk tables cover. */
  private known = 0;
  private built = 0;
  /**
   * Per chunk: start of each value's run in `entries` (CSR), the ordinals, and beside them their
   * hashes, so that comparing the candidates of a run reads memory in order rather than jumping
   * to each ordinal's hash (at a million terms, those jumps were most of a search's time).
   */
  private offsets: Uint32Array[] = [];
  private entries: Uint32Array[] = [];
  private entryHi: Uint32Array[] = [];
  private entryLo: Uint32Array[] = [];
  /** Per ordinal, the last query that compared it (so each term is compared once per query). */
  private seen = new Uint32Array(1024);
  private query = 0;

  constructor(private readonly dict: TermDictionary) {}

  /** Calls `found(ord, distance)` once for each term within `maxDistance` bits of the hash. */
  within(hash: [number, number], maxDistance: number, found: (ord: number, distance: number) => void): void {
    this.refresh();
    const [qhi, qlo] = hash;
    // locals: the loops below run tens of thousands of times a search
    const hi = this.hi;
    const lo = this.lo;
    const valid = this.valid;
    const radius = Math.min(16, Math.floor(Math.max(0, maxDistance) / CHUNKS));
    const masks = UP_TO_WEIGHT[radius]!;
    // Expected candidates of the lookups against a scan of every table entry.
    const scan = (from: number) => {
      for (let ord = from, n = this.known; ord < n; ord++) {
        if (valid[ord] === 0) continue;
        const d = popcount32((hi[ord]! ^ qhi) >>> 0) + popcount32((lo[ord]! ^ qlo) >>> 0);
        if (d <= maxDistance) found(ord, d);
      }
    };
    if (this.built === 0 || CHUNKS * masks * (this.built / CHUNK_VALUES + 1) >= this.built) {
      scan(0);
      return;
    }
    this.query = (this.query + 1) >>> 0 || 1;
    const stamp = this.query;
    const seen = this.seen;
    for (let j = 0; j < CHUNKS; j++) {
      const q = chunkOf(qhi, qlo, j);
      const offsets = this.offsets[j]!;
      const entries = this.entries[j]!;
      const entryHi = this.entryHi[j]!;
      const entryLo = this.entryLo[j]!;
      for (let m = 0; m < masks; m++) {
        const v = q ^ MASKS[m]!;
        for (let k = offsets[v]!, stop = offsets[v + 1]!; k < stop; k++) {
          const d = popcount32((entryHi[k]! ^ qhi) >>> 0) + popcount32((entryLo[k]! ^ qlo) >>> 0);
          if (d > maxDistance) continue;
          // a match shares chunks with the query in several tables: report it once
          const ord = entries[k]!;
          if (seen[ord] === stamp) continue;
          seen[ord] = stamp;
          found(ord, d);
        }
      }
    }
    scan(this.built);
  }

  /** Parse the terms added since the last call; rebuild the tables when the tail grew too long. */
  private refresh(): void {
    const size = this.dict.size;
    if (size > this.known) {
      this.grow(size);
      for (let ord = this.known; ord < size; ord++) {
        const parsed = parseHash64(this.dict.termAt(ord));
        if (parsed === null) continue;
        this.hi[ord] = parsed[0];
        this.lo[ord] = parsed[1];
        this.valid[ord] = 1;
      }
      this.known = size;
    }
    if (this.known - this.built > Math.max(MIN_TAIL, this.built / 8)) this.rebuild();
  }

  private grow(size: number): void {
    if (size <= this.hi.length) return;
    let cap = this.hi.length * 2;
    while (cap < size) cap *= 2;
    const widen = <T extends Uint32Array | Uint8Array>(a: T, make: (n: number) => T): T => {
      const next = make(cap);
      next.set(a);
      return next;
    };
    this.hi = widen(this.hi, (n) => new Uint32Array(n));
    this.lo = widen(this.lo, (n) => new Uint32Array(n));
    this.valid = widen(this.valid, (n) => new Uint8Array(n));
    this.seen = widen(this.seen, (n) => new Uint32Array(n));
  }

  /** Counting sort of the known ordinals by each chunk's value. */
  private rebuild(): void {
    const n = this.known;
    this.offsets = [];
    this.entries = [];
    this.entryHi = [];
    this.entryLo = [];
    for (let j = 0; j < CHUNKS; j++) {
      const offsets = new Uint32Array(CHUNK_VALUES + 1);
      for (let ord = 0; ord < n; ord++) if (this.valid[ord] === 1) offsets[chunkOf(this.hi[ord]!, this.lo[ord]!, j) + 1]!++;
      for (let v = 0; v < CHUNK_VALUES; v++) offsets[v + 1]! += offsets[v]!;
      const entries = new Uint32Array(offsets[CHUNK_VALUES]!);
      const entryHi = new Uint32Array(entries.length);
      const entryLo = new Uint32Array(entries.length);
      const next = offsets.slice(0, CHUNK_VALUES);
      for (let ord = 0; ord < n; ord++) {
        if (this.valid[ord] === 0) continue;
        const k = next[chunkOf(this.hi[ord]!, this.lo[ord]!, j)]!++;
        entries[k] = ord;
        entryHi[k] = this.hi[ord]!;
        entryLo[k] = this.lo[ord]!;
      }
      this.offsets.push(offsets);
      this.entries.push(entries);
      this.entryHi.push(entryHi);
      this.entryLo.push(entryLo);
    }
    this.built = n;
  }
}
