/**
 * Token buckets per identity (an API key's user, else the client IP): each request takes `cost`
 * tokens; tokens refill continuously up to the bucket's capacity. Memory is bounded: identities
 * not seen lately are forgotten first (`src/lib/bounded-map.ts`; a forgotten bucket is a full one).
 */
import { BoundedMap } from '../lib/bounded-map.js';

export interface BucketPolicy {
  /** Burst size. */
  capacity: number;
  /** Tokens added per second. */
  refillPerSecond: number;
}

export type TakeResult = { ok: true; remaining: number } | { ok: false; retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export class TokenBuckets {
  private readonly buckets: BoundedMap<string, Bucket>;

  constructor(
    readonly policy: BucketPolicy,
    maxIdentities = 100_000,
  ) {
    this.buckets = new BoundedMap({ maxEntries: maxIdentities });
  }

  take(identity: string, cost = 1, nowMs = Date.now()): TakeResult {
    const { capacity, refillPerSecond } = this.policy;
    let b = this.buckets.get(identity);
    if (b) {
      b.tokens = Math.min(capacity, b.tokens + ((nowMs - b.updatedMs) / 1000) * refillPerSecond);
      b.updatedMs = nowMs;
    } else {
      b = { tokens: capacity, updatedMs: nowMs };
      this.buckets.set(identity, b);
    }
    // A request costlier than the whole bucket may still run when the bucket is full.
    const needed = Math.min(cost, capacity);
    if (b.tokens >= needed) {
      b.tokens -= needed;
      return { ok: true, remaining: Math.floor(b.tokens) };
    }
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((needed - b.tokens) / refillPerSecond)) };
  }
}
