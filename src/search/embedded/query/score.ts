/**
 * Scores, computed only when a sort asks for `_score`: every matching scoring clause counts 1
 * times its boost (a constant-score approximation of OpenSearch's relevance), `bool` sums its
 * `must` and `should` clauses, `function_score` combines its query score with its functions.
 */
import { finalizeHash } from '../hash.js';

export type Scorer = ((doc: number) => number) & {
  /** Set on a pure random order (random_score of the document id, boost_mode replace). */
  random?: RandomOrder;
};

/** A random order of documents by id: score = perm.rankOf(ids[doc]) / perm.size · boost. */
export interface RandomOrder {
  perm: IdPermutation;
  ids: Float64Array;
  /**
   * id → live document number (−1: none), when every id lies in the permuted range: the top-k
   * can then read the order from its top (see `IdPermutation`).
   */
  docOf: ((id: number) => number) | null;
  boost: number;
}

export const constantScorer = (boost: number): Scorer => () => boost;

function mix(h: number, k: number): number {
  k = Math.imul(k, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

export function seedOf(seed: unknown): number {
  if (typeof seed === 'number' && Number.isFinite(seed)) return seed;
  if (typeof seed === 'string') {
    const n = Number(seed);
    if (seed.trim() !== '' && Number.isFinite(n)) return n;
    let h = 0;
    for (let i = 0; i < seed.length; i++) h = mix(h, seed.charCodeAt(i));
    return finalizeHash(h);
  }
  if (seed === undefined) return 0;
  throw new Error(`[random_score] invalid seed ${JSON.stringify(seed)}`);
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

function lowBits(x: number): number {
  if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER) return x >>> 0;
  f64[0] = x;
  return u32[0]! ^ u32[1]!;
}

function highBits(x: number): number {
  if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER) return Math.floor(x / 4294967296) | 0;
  return 0x7ff00000;
}

/**
 * random_score for one seed: a deterministic hash of (seed, value) in [0, 1) with 24 bits of
 * precision (a float score, as in OpenSearch). The same seed gives the same order on every page.
 */
export function randomScorer(seed: number): (value: number) => number {
  const h0 = seedHash(seed);
  return (value) => randomBits(h0, value) / 16777216;
}

export function seedHash(seed: number): number {
  return mix(mix(0x9747b28c, lowBits(seed)), highBits(seed));
}

/** The 24 random bits of (seed hash, value); the score is this / 2^24. */
export function randomBits(h0: number, value: number): number {
  let h = mix(h0, value >>> 0);
  if (value > 4294967295 || value < 0 || !Number.isInteger(value)) h = mix(mix(h, lowBits(value)), highBits(value));
  return finalizeHash(h ^ 8) >>> 8;
}

/** Bits of the range ids are permuted in: 24, or the even number that holds `maxId`. */
export function idRangeBits(maxId: number): number {
  let bits = 24;
  while (bits < 32 && maxId >= 2 ** bits) bits += 2;
  return bits;
}

/**
 * `random_score` on document ids: a seeded permutation of the ids in [0, 2^bits), a four-round
 * Feistel network, scored rank / 2^bits. Being a permutation that runs backwards too, the top
 * of an order can be read by walking ranks down from the top and mapping each back to its id:
 * a few lookups per result instead of a hash of every hit. The range is 2^24 ids, or as many
 * even bits as the largest id needs, so an order stays the same while images are added until
 * the largest id passes 2^24 (then 2^26…). Ids outside the range (not whole, negative) rank
 * by a hash of the id instead.
 */
export class IdPermutation {
  readonly size: number;
  private readonly half: number;
  private readonly mask: number;
  private readonly keys: Int32Array;
  private readonly h0: number;

  constructor(seed: number, readonly bits: number) {
    this.size = 2 ** bits;
    this.half = bits >>> 1;
    this.mask = (1 << this.half) - 1;
    this.h0 = seedHash(seed);
    this.keys = Int32Array.from({ length: 4 }, (_, i) => finalizeHash(this.h0 + Math.imul(i + 1, 0x9e3779b9)));
  }

  /** Whether `id` is one of the permuted ids. */
  private holds(id: number): boolean {
    return id >= 0 && id < this.size && Math.floor(id) === id;
  }

  /** The rank of an id in [0, size): the permuted id, or for other ids a hash scaled to the range. */
  rankOf(id: number): number {
    if (!this.holds(id)) return (randomBits(this.h0, id) / 16777216) * this.size;
    const { half, mask, keys } = this;
    let l = id >>> half;
    let r = id & mask;
    for (let i = 0; i < 4; i++) {
      const t = l ^ (finalizeHash(r ^ keys[i]!) & mask);
      l = r;
      r = t;
    }
    return l * (mask + 1) + r;
  }

  /** The id of a rank in [0, size) (the inverse of `rankOf` on the permuted ids). */
  idAt(rank: number): number {
    const { half, mask, keys } = this;
    let l = rank >>> half;
    let r = rank & mask;
    for (let i = 3; i >= 0; i--) {
      const t = r ^ (finalizeHash(l ^ keys[i]!) & mask);
      r = l;
      l = t;
    }
    return l * (mask + 1) + r;
  }
}

export type ScoreMode = 'multiply' | 'sum' | 'avg' | 'first' | 'max' | 'min';
export type BoostMode = 'multiply' | 'replace' | 'sum' | 'avg' | 'max' | 'min';

export interface ScoreFunction {
  /** Documents the function applies to (null: all). */
  applies: ((doc: number) => boolean) | null;
  /** The function's value (before weight). */
  value: Scorer;
  weight: number;
}

/** Combine function values per `score_mode` (1 when no function applies). */
export function combineFunctions(fns: ScoreFunction[], mode: ScoreMode, doc: number, maxBoost: number): number {
  let result = mode === 'multiply' ? 1 : mode === 'max' ? -Infinity : mode === 'min' ? Infinity : 0;
  let weights = 0;
  let any = false;
  for (const f of fns) {
    if (f.applies && !f.applies(doc)) continue;
    const v = f.value(doc) * f.weight;
    switch (mode) {
      case 'multiply':
        result *= v;
        break;
      case 'sum':
        result += v;
        break;
      case 'avg':
        result += v;
        weights += f.weight;
        break;
      case 'first':
        if (!any) result = v;
        break;
      case 'max':
        result = Math.max(result, v);
        break;
      case 'min':
        result = Math.min(result, v);
        break;
    }
    any = true;
  }
  if (!any) return 1;
  if (mode === 'avg') result = weights === 0 ? 0 : result / weights;
  return Math.min(result, maxBoost);
}

export function combineBoost(query: number, fn: number, mode: BoostMode): number {
  switch (mode) {
    case 'multiply':
      return query * fn;
    case 'replace':
      return fn;
    case 'sum':
      return query + fn;
    case 'avg':
      return (query + fn) / 2;
    case 'max':
      return Math.max(query, fn);
    case 'min':
      return Math.min(query, fn);
  }
}
