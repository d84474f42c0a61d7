import type { Database } from '../db/client.js';
import { issueAutomaticBan, type ActiveBan } from '../contexts/users/active-bans.js';
import { pruneSharedLimits } from '../contexts/limits/shared-limits.js';
import { BanCache } from '../caches/ban-cache.js';
import { SharedBuckets } from './shared-buckets.js';
import type { BucketPolicy } from './token-buckets.js';
import { SharedViolations } from './violations.js';

export type Budget = 'read' | 'search' | 'upload';

export interface LimitPolicy {
  budgets: Record<Budget, BucketPolicy>;
  /** Rejections within `violationWindowSeconds` that turn into a temporary ban. */
  banAfterViolations: number;
  violationWindowSeconds: number;
  banSeconds: number;
}

export type LimitDecision =
  | { kind: 'ok'; remaining: number }
  | { kind: 'limited'; retryAfterSeconds: number }
  | { kind: 'banned'; ban: ActiveBan };

export interface Caller {
  userId?: number;
  ip?: string;
}

/** The name a caller's budgets are kept under: its key's user, else its address. */
export function callerIdentity(caller: Caller): string {
  return caller.userId !== undefined ? `user:${caller.userId}` : `ip:${caller.ip ?? 'unknown'}`;
}

/** How often a limiter forgets, in the shared store, what no longer limits anyone. */
const PRUNE_EVERY_MS = 60_000;

/**
 * Usage terms 2 and 3: each caller (its key's user, else its IP) has a budget per kind of
 * request; going over gets a 429 with Retry-After, and repeating that within a window gets a
 * temporary ban. Budgets, violations and bans live in PostgreSQL and are shared by every API
 * process (`SharedBuckets` says how closely and at what cost); the ban is issued once.
 */
export class RequestLimiter {
  private readonly buckets: Record<Budget, SharedBuckets>;
  private readonly violations: SharedViolations;
  private readonly bans: BanCache;
  private prunedAt = Date.now();

  constructor(
    private readonly db: Database,
    private readonly policy: LimitPolicy,
    bans?: BanCache,
    private readonly onError?: (err: unknown) => void,
  ) {
    const shared = (budget: Budget) => new SharedBuckets(db, budget, policy.budgets[budget], { onError });
    this.buckets = { read: shared('read'), search: shared('search'), upload: shared('upload') };
    this.violations = new SharedViolations(db, policy.violationWindowSeconds, policy.banAfterViolations, onError);
    this.bans = bans ?? new BanCache(db);
  }

  /** Whether the caller is banned right now (no budget is spent). */
  banOf(caller: Caller): Promise<ActiveBan | undefined> {
    return this.bans.lookup(caller);
  }

  async check(caller: Caller, budget: Budget, cost = 1, nowMs = Date.now()): Promise<LimitDecision> {
    const ban = await this.bans.lookup(caller, nowMs);
    if (ban) return { kind: 'banned', ban };
    const identity = callerIdentity(caller);
    const take = this.buckets[budget].take(identity, cost, nowMs);
    const taken = take instanceof Promise ? await take : take;
    this.pruneNowAndThen();
    if (taken.ok) return { kind: 'ok', remaining: taken.remaining };
    if (await this.violations.record(identity)) {
      const issued = await issueAutomaticBan(this.db, caller, 'Too many requests after being asked to slow down', this.policy.banSeconds);
      this.bans.remember(caller, issued, nowMs);
      return { kind: 'banned', ban: issued };
    }
    return { kind: 'limited', retryAfterSeconds: taken.retryAfterSeconds };
  }

  /** Now and then, in the background: drop the shared rows of full buckets and past windows. */
  private pruneNowAndThen(): void {
    const now = Date.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    for (const { budget, policy } of Object.values(this.buckets)) {
      const fullAfterSeconds = Math.ceil(policy.capacity / policy.refillPerSecond);
      void pruneSharedLimits(this.db, budget, fullAfterSeconds, this.policy.violationWindowSeconds).catch((err: unknown) => this.onError?.(err));
    }
  }
}

/** Parse a rate like `30/5s`, `20/10s`, `10/1m` or `1000/1h` into a bucket policy. */
export function parseRate(text: string): BucketPolicy {
  const m = /^\s*(\d+)\s*\/\s*(\d+)?\s*(s|m|h)\s*$/.exec(text);
  if (!m) throw new Error(`"${text}" is not a rate like 30/5s`);
  const count = Number(m[1]);
  const seconds = Number(m[2] ?? 1) * { s: 1, m: 60, h: 3600 }[m[3] as 's' | 'm' | 'h'];
  if (count < 1 || seconds < 1) throw new Error(`"${text}" must allow at least one request per period`);
  return { capacity: count, refillPerSecond: count / seconds };
}

/** Cost of a search: wildcard expansions and deep pages cost more of the budget. */
export function searchCost(q: string | undefined, page: number, perPage: number): number {
  let cost = 1;
  const wildcards = q ? (q.match(/(?<!\\)[*?]/g) ?? []).length : 0;
  cost += Math.min(5, wildcards);
  const offset = (page - 1) * perPage;
  if (offset >= 10_000) cost += 2;
  if (offset >= 100_000) cost += 3;
  return cost;
}

/** The policy of the configured limits (see `RATE_LIMIT_*` in config). */
export function limitPolicyFrom(limits: { read: string; search: string; upload: string; banAfterViolations: number; banWindowSeconds: number; banSeconds: number }): LimitPolicy {
  return {
    budgets: { read: parseRate(limits.read), search: parseRate(limits.search), upload: parseRate(limits.upload) },
    banAfterViolations: limits.banAfterViolations,
    violationWindowSeconds: limits.banWindowSeconds,
    banSeconds: limits.banSeconds,
  };
}
