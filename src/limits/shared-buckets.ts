/**
 * Token buckets per identity shared by every API process: the bucket itself lives in PostgreSQL
 * (`takeSharedTokens`), and each process takes tokens from it in chunks (a lease) that it spends
 * locally, so a busy caller costs one round trip per `chunk` tokens, not one per request.
 *
 * Error bound, for N processes serving one caller:
 * - Never more than the budget plus `refillPerSecond × leaseMs` per process: every token spent was
 *   first taken from the shared bucket, and a lease unspent after `leaseMs` lapses: its tokens are
 *   put back into the shared bucket with the process's next round trip for that caller, never past
 *   the bucket's capacity, so tokens taken before a refill cannot be spent on top of it much later.
 *   `leaseMs` is at most one second and at most the time the chunk takes to refill, so this is
 *   below one chunk per process.
 * - At most `chunk` tokens per other process less than the budget: what other processes hold in
 *   leases they have not spent or put back yet. The chunk is a tenth of the bucket's capacity (at
 *   least 1), so three processes give a caller between 80 % and 100 % of one budget, never three.
 *
 * A caller refused by the shared bucket is refused locally, without a round trip, until enough
 * tokens for its request have had time to refill (what others take meanwhile is only less). When PostgreSQL cannot be reached the process falls
 * back to a bucket of its own (`TokenBuckets`), as every process did before the store was shared,
 * and does not try the store again for `RETRY_STORE_MS`: reads keep being served from memory
 * meanwhile, without waiting on a connection that cannot be made.
 */
import { takeSharedTokens } from '../contexts/limits/shared-limits.js';
import type { Database } from '../db/client.js';
import { BoundedMap } from '../lib/bounded-map.js';
import { TokenBuckets, type BucketPolicy, type TakeResult } from './token-buckets.js';

/** After a failed round trip, how long the local fallback answers alone. */
export const RETRY_STORE_MS = 2_000;

interface Lease {
  /** Tokens taken from the shared bucket and not spent yet. */
  tokens: number;
  /** When the unspent tokens are dropped. */
  expiresMs: number;
  /**
   * After a refusal: the shared bucket's tokens then, and when (0: not known). Other processes
   * only take from it, so what it holds now is at most this plus the refill since.
   */
  knownLeft: number;
  knownAtMs: number;
  /** A reservation under way: others of this identity wait for it rather than send their own. */
  pending?: Promise<unknown>;
}

export interface SharedBucketOptions {
  /** Tokens taken per round trip (default: a tenth of the capacity, at least 1). */
  chunk?: number;
  /** Identities whose leases are kept at most; those not used lately are forgotten first. */
  maxIdentities?: number;
  /** Told of a failed round trip (the request was charged to the local fallback). */
  onError?: (err: unknown) => void;
}

export class SharedBuckets {
  readonly chunk: number;
  readonly leaseMs: number;
  private readonly leases: BoundedMap<string, Lease>;
  private readonly fallback: TokenBuckets;
  private readonly maxIdentities: number;
  /** The store failed: until then the fallback answers. */
  private storeDownUntil = 0;

  constructor(
    private readonly db: Database,
    /** The budget's name in the shared store. */
    readonly budget: string,
    readonly policy: BucketPolicy,
    private readonly options: SharedBucketOptions = {},
  ) {
    this.chunk = options.chunk ?? Math.max(1, Math.floor(policy.capacity / 10));
    this.leaseMs = Math.min(1000, (this.chunk / policy.refillPerSecond) * 1000);
    this.maxIdentities = options.maxIdentities ?? 100_000;
    this.fallback = new TokenBuckets(policy, this.maxIdentities);
    this.leases = new BoundedMap({ maxEntries: this.maxIdentities });
  }

  /** Take `cost` tokens of `identity`'s budget: at once from its lease, else after one round trip. */
  take(identity: string, cost = 1, nowMs = Date.now()): TakeResult | Promise<TakeResult> {
    // A request costlier than the whole bucket may still run when the bucket is full.
    const needed = Math.min(cost, this.policy.capacity);
    if (this.storeDownUntil > 0 && Date.now() < this.storeDownUntil) return this.fallback.take(identity, needed, nowMs);
    const lease = this.leases.get(identity);
    if (lease) {
      if (lease.pending) return lease.pending.then(() => this.take(identity, cost, nowMs));
      const kept = nowMs < lease.expiresMs ? lease.tokens : 0;
      if (kept >= needed) {
        lease.tokens -= needed;
        return { ok: true, remaining: Math.floor(lease.tokens) };
      }
      if (lease.knownAtMs > 0) {
        const short = needed - kept - (lease.knownLeft + ((nowMs - lease.knownAtMs) / 1000) * this.policy.refillPerSecond);
        if (short > 0) return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(short / this.policy.refillPerSecond)) };
      }
    }
    return this.reserve(identity, lease ?? this.newLease(identity), needed, nowMs);
  }

  private newLease(identity: string): Lease {
    const lease: Lease = { tokens: 0, expiresMs: 0, knownLeft: 0, knownAtMs: 0 };
    this.leases.set(identity, lease);
    return lease;
  }

  private reserve(identity: string, lease: Lease, needed: number, nowMs: number): Promise<TakeResult> {
    const { capacity, refillPerSecond } = this.policy;
    // tokens of the lease still good count towards the request: only the rest is asked for; those
    // of a lapsed lease go back to the shared bucket in the same round trip
    const kept = nowMs < lease.expiresMs ? lease.tokens : 0;
    const returned = kept === 0 ? lease.tokens : 0;
    lease.tokens = kept;
    const tokens = { need: needed - Math.min(kept, needed), want: Math.max(needed, this.chunk) - kept, returned };
    const request = takeSharedTokens(this.db, { identity, budget: this.budget }, this.policy, tokens).then(
      (grant): TakeResult => {
        const have = kept + grant.granted;
        if (grant.granted > 0 && have >= needed) {
          lease.tokens = have - needed;
          lease.expiresMs = nowMs + this.leaseMs;
          lease.knownAtMs = 0;
          return { ok: true, remaining: Math.floor(Math.min(capacity, grant.left + lease.tokens)) };
        }
        lease.knownLeft = grant.left;
        lease.knownAtMs = nowMs;
        return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((needed - kept - grant.left) / refillPerSecond)) };
      },
      (err: unknown): TakeResult => {
        this.storeDownUntil = Date.now() + RETRY_STORE_MS;
        this.options.onError?.(err);
        return this.fallback.take(identity, needed, nowMs);
      },
    );
    lease.pending = request;
    return request.finally(() => {
      lease.pending = undefined;
    });
  }
}
