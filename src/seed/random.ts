/**
 * Seeded randomness for the seeders: the same seed gives the same board, on every machine.
 */
import { mulberry32 } from '../lib/random.js';

/** Mix a seed with a stream number into a new 32-bit seed (murmur3's finaliser). */
export function mixSeed(seed: number, stream: number): number {
  let h = (Math.imul(seed | 0, 0x9e3779b1) ^ Math.imul(stream | 0, 0x85ebca6b)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export class Random {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  /** A new generator for an independent stream, so that adding draws to one part of a seeder does not shift another. */
  static stream(seed: number, name: string): Random {
    let h = 0;
    for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
    return new Random(mixSeed(seed, h));
  }

  /** Uniform in [0, 1). */
  float(): number {
    return this.next();
  }

  /** Uniform integer in [lo, hi] (inclusive). */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(list: readonly T[]): T {
    if (list.length === 0) throw new Error('pick from an empty list');
    return list[Math.floor(this.next() * list.length)] as T;
  }

  /** An index drawn with the given (not necessarily normalised) weights. */
  weightedIndex(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i]!;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  weighted<T>(items: readonly T[], weights: readonly number[]): T {
    return items[this.weightedIndex(weights)] as T;
  }

  /** A Fisher–Yates shuffled copy. */
  shuffle<T>(list: readonly T[]): T[] {
    const out = [...list];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }

  /** `k` distinct elements in random order. */
  sample<T>(list: readonly T[], k: number): T[] {
    return this.shuffle(list).slice(0, Math.min(k, list.length));
  }

  /** Lowercase hex of `bytes` random bytes. */
  hex(bytes: number): string {
    let s = '';
    for (let i = 0; i < bytes; i++) s += Math.floor(this.next() * 256).toString(16).padStart(2, '0');
    return s;
  }

  /** A time between two dates. */
  date(from: Date, to: Date): Date {
    return new Date(from.getTime() + Math.floor(this.next() * (to.getTime() - from.getTime())));
  }
}

/**
 * Zipf-like sampler over ranks 0..n-1: P(rank r) ∝ 1 / (r + offset)^s. Drawing is a binary search
 * over the cumulative weights, so it stays fast for hundreds of thousands of ranks.
 */
export class Zipf {
  private readonly cumulative: Float64Array;

  constructor(n: number, s = 1, offset = 1) {
    this.cumulative = new Float64Array(n);
    let total = 0;
    for (let r = 0; r < n; r++) {
      total += 1 / Math.pow(r + offset, s);
      this.cumulative[r] = total;
    }
  }

  get size(): number {
    return this.cumulative.length;
  }

  /** A rank, using `u` uniform in [0, 1). */
  rank(u: number): number {
    const c = this.cumulative;
    const target = u * c[c.length - 1]!;
    let lo = 0;
    let hi = c.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (c[mid]! > target) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  draw(rng: Random): number {
    return this.rank(rng.float());
  }
}
