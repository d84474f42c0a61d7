/**
 * A per-client bound on one costly kind of request (reverse searches, each an upload or a
 * download and an image analysis): at most `concurrency` of a client's requests in flight at once,
 * and a rate (a token bucket). It is checked before the request's body is read, so a client over
 * either bound costs the process a header parse and a short answer. Clients are identities as the
 * limiter names them (a key's user, else the address); memory is bounded as TokenBuckets bounds it,
 * and the in-flight counts hold only clients with a request running.
 */
import { TokenBuckets, type BucketPolicy } from './token-buckets.js';

export interface ClientGateOptions {
  /** A client's requests running at once; one more is refused. */
  concurrency: number;
  rate: BucketPolicy;
}

export type GateDecision = { ok: true; release: () => void } | { ok: false; retryAfterSeconds: number; bound: 'concurrency' | 'rate' };

export class ClientGate {
  readonly #inFlight = new Map<string, number>();
  readonly #rate: TokenBuckets;

  constructor(readonly options: ClientGateOptions) {
    this.#rate = new TokenBuckets(options.rate);
  }

  /** Let a request of `identity` in, or say how long it should wait; `release` once it is answered. */
  enter(identity: string, nowMs = Date.now()): GateDecision {
    const running = this.#inFlight.get(identity) ?? 0;
    // Refused on concurrency before the rate is charged: a refused request spends no token.
    if (running >= this.options.concurrency) return { ok: false, retryAfterSeconds: 1, bound: 'concurrency' };
    const taken = this.#rate.take(identity, 1, nowMs);
    if (!taken.ok) return { ok: false, retryAfterSeconds: taken.retryAfterSeconds, bound: 'rate' };
    this.#inFlight.set(identity, running + 1);
    let released = false;
    return {
      ok: true,
      release: () => {
        if (released) return;
        released = true;
        const left = (this.#inFlight.get(identity) ?? 1) - 1;
        if (left > 0) this.#inFlight.set(identity, left);
        else this.#inFlight.delete(identity);
      },
    };
  }

  /** Requests of `identity` running now. */
  running(identity: string): number {
    return this.#inFlight.get(identity) ?? 0;
  }
}
