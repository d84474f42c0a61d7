/**
 * What each refused client was told: when its refusal was answered and until when it should wait
 * (its Retry-After). A request of that client arriving after the answer went out and before the
 * wait is over comes from a client that did not wait; a request arriving in the same millisecond
 * as the answer was sent alongside the refused one, before the client could have read it, and is
 * not counted. Memory is bounded: the least recently refused identities are forgotten first (a
 * refusal stores its identity again, a look does not mark it; `src/lib/bounded-map.ts`), and a
 * forgotten client counts as refused for the first time.
 */
import { BoundedMap } from '../lib/bounded-map.js';

interface Told {
  answeredMs: number;
  untilMs: number;
}

export class RefusalMemory {
  readonly #told: BoundedMap<string, Told>;

  constructor(maxIdentities = 100_000) {
    this.#told = new BoundedMap({ maxEntries: maxIdentities });
  }

  /** Whether `identity` comes back, at `nowMs`, within a wait it was told to honour. */
  cameBackEarly(identity: string, nowMs = Date.now()): boolean {
    const told = this.#told.peek(identity);
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
    const before = this.#told.peek(identity);
    // stored again below: the young end of the order
    if (before && answeredMs < before.untilMs) {
      // Still in a wait it was told of: the wait is the longest it was given.
      this.#told.set(identity, { answeredMs: before.answeredMs, untilMs: Math.max(untilMs, before.untilMs) });
      return;
    }
    this.#told.set(identity, { answeredMs, untilMs });
  }
}
