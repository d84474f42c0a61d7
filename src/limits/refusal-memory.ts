/**
 * What each refused client was told: when its refusal was answered and until when it should wait
 * (its Retry-After). A request of that client arriving after the answer went out and before the
 * wait is over comes from a client that did not wait; a request arriving in the same millisecond
 * as the answer was sent alongside the refused one, before the client could have read it, and is
 * not counted. Memory is bounded as TokenBuckets bounds it: the least recently refused identities
 * are forgotten first, and a forgotten client counts as refused for the first time.
 */

interface Told {
  answeredMs: number;
  untilMs: number;
}

export class RefusalMemory {
  readonly #told = new Map<string, Told>();

  constructor(private readonly maxIdentities = 100_000) {}

  /** Whether `identity` comes back, at `nowMs`, within a wait it was told to honour. */
  cameBackEarly(identity: string, nowMs = Date.now()): boolean {
    const told = this.#told.get(identity);
    if (!told) return false;
    if (nowMs >= told.untilMs) {
      this.#told.delete(identity);
      return false;
    }
    return nowMs > told.answeredMs;
  }

  /** `identity` was refused at `answeredMs` and told to wait `retryAfterSeconds`. */
  told(identity: string, retryAfterSeconds: number, answeredMs = Date.now()): void {
    const untilMs = answeredMs + retryAfterSeconds * 1000;
    const before = this.#told.get(identity);
    this.#told.delete(identity); // re-inserted below: Map order is our LRU order
    if (before && answeredMs < before.untilMs) {
      // Still in a wait it was told of: the wait is the longest it was given.
      this.#told.set(identity, { answeredMs: before.answeredMs, untilMs: Math.max(untilMs, before.untilMs) });
      return;
    }
    if (this.#told.size >= this.maxIdentities) this.#told.delete(this.#told.keys().next().value!);
    this.#told.set(identity, { answeredMs, untilMs });
  }
}
