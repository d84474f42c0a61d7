/**
 * A per-client bound on one costly kind of request (reverse searches, each an upload or a
 * download and an image analysis): at most `concurrency` of a client's requests in flight at once,
 * and a rate (a token bucket), both held across every API process in PostgreSQL: a slot per
 * request running (`enterSharedGate`, each held until it leaves or `holdSeconds` pass, so a process
 * killed in the middle frees its slots then) and the rate as a shared bucket taken one token at a
 * time (one round trip: nothing next to the work it guards). It is checked before the request's
 * body is read, so a client over either bound costs two short queries and a short answer. Clients
 * are identities as the limiter names them (a key's user, else the address).
 */
import { randomUUID } from 'node:crypto';
import { enterSharedGate, leaveSharedGate } from '../contexts/limits/shared-limits.js';
import type { Database } from '../db/client.js';
import { SharedBuckets } from './shared-buckets.js';
import type { BucketPolicy } from './token-buckets.js';

export interface ClientGateOptions {
  /** The gate's name in the shared store. */
  name: string;
  /** A client's requests running at once; one more is refused. */
  concurrency: number;
  rate: BucketPolicy;
  /** The longest a request holds its slot if it never leaves (default 120 s). */
  holdSeconds?: number;
}

export type GateDecision = { ok: true; release: () => Promise<void> } | { ok: false; retryAfterSeconds: number; bound: 'concurrency' | 'rate' };

export class ClientGate {
  readonly #rate: SharedBuckets;

  constructor(
    private readonly db: Database,
    readonly options: ClientGateOptions,
  ) {
    this.#rate = new SharedBuckets(db, `gate:${options.name}`, options.rate, { chunk: 1 });
  }

  /** Let a request of `identity` in, or say how long it should wait; `release` once it is answered. */
  async enter(identity: string): Promise<GateDecision> {
    const slot = { gate: this.options.name, identity, token: randomUUID() };
    // Refused on concurrency before the rate is charged: a refused request spends no token.
    if (!(await enterSharedGate(this.db, slot, this.options.concurrency, this.options.holdSeconds ?? 120))) {
      return { ok: false, retryAfterSeconds: 1, bound: 'concurrency' };
    }
    const take = this.#rate.take(identity, 1);
    const taken = take instanceof Promise ? await take : take;
    if (!taken.ok) {
      await leaveSharedGate(this.db, slot);
      return { ok: false, retryAfterSeconds: taken.retryAfterSeconds, bound: 'rate' };
    }
    let released: Promise<void> | undefined;
    // a slot that could not be freed (PostgreSQL unreachable) is freed when its hold runs out
    return { ok: true, release: () => (released ??= leaveSharedGate(this.db, slot).catch(() => {})) };
  }
}
