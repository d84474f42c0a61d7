/**
 * Refusals that cost the server almost nothing when a client keeps coming back (a tarpit).
 *
 * A refusal is cheap to decide but not to answer when the request carries a large body: to keep a
 * connection alive after an answer, Node and @hono/node-server read and drop the rest of the body
 * (up to 64 MB or half a second), so a client resending a few hundred KB as soon as each 429
 * arrives makes the server read at full speed and answer hundreds of times a second.
 *
 * So: a client's first refusal is answered at once, as before. A client refused again after that
 * answer and before its wait is over (RefusalMemory; the wait is a 429's Retry-After or what is
 * left of a ban) is answered only after a pause (`pauseMs`, never longer than the wait), with the
 * same refusal (the 429 JSON error with its Retry-After, or the ban's 403) and `Connection: close`. Meanwhile nothing reads its body: Node reads one chunk from the socket
 * (64 KiB) and stops once the request stream's buffer is full, and TCP flow control holds the
 * client. After the answer, `Connection: close` makes Node close the socket as soon as the answer
 * is written, so the rest of the body is never read; the client reads the 429 before the close
 * (undici's fetch does: the answer of a few hundred bytes is sent before the close).
 * A client that waits as it is told never meets the pause; a looping client sends about one
 * request a second per loop instead of as fast as the server answers.
 *
 * Bounds: at most `maxHeld` refusals are held at once in all (beyond, a repeat refusal is answered
 * at once, still with `Connection: close`), each for one pause at most, so holding cannot itself be
 * turned into an attack; at shutdown (`signal` aborted) every held refusal is answered at once and
 * none is held after, so a graceful stop is not delayed.
 */
import { RefusalMemory } from '../../limits/index.js';
import type { Context } from 'hono';

/** The app's tarpit: a pause of about a second, at most 256 refusals held at once. */
export const APP_TARPIT = { pauseMs: 1_000, maxHeld: 256 };

export interface TarpitOptions {
  /** Longest pause before a repeat refusal is answered; it is never longer than the Retry-After. */
  pauseMs: number;
  /** Refusals held at once, in all. */
  maxHeld: number;
  /** Aborted when the process stops: held refusals are answered at once, and none is held after. */
  signal?: AbortSignal | undefined;
}

export class Tarpit {
  readonly #memory = new RefusalMemory();
  /** The wake-up of each held refusal. */
  readonly #held = new Set<() => void>();

  constructor(readonly options: TarpitOptions) {
    const releaseAll = () => {
      for (const wake of [...this.#held]) wake();
    };
    options.signal?.addEventListener('abort', releaseAll, { once: true });
  }

  /** Refusals held right now. */
  get held(): number {
    return this.#held.size;
  }

  /**
   * `answer`, a refusal telling the client of `identity` to wait `waitSeconds` (a 429's
   * Retry-After, or what is left of a ban), held and closing the connection if the client came
   * back before an earlier wait was over.
   */
  async hold(c: Context, identity: string, waitSeconds: number, answer: () => Response): Promise<Response> {
    if (this.#memory.cameBackEarly(identity)) {
      await this.#pause(Math.min(this.options.pauseMs, waitSeconds * 1000));
      c.header('Connection', 'close');
    }
    this.#memory.told(identity, waitSeconds);
    return answer();
  }

  /**
   * Wait `ms`, unless the cap is reached or the process stops. A client that goes away meanwhile
   * is not noticed (its socket is not being read), so it keeps its place until the pause ends.
   */
  #pause(ms: number): Promise<void> {
    if (this.#held.size >= this.options.maxHeld || this.options.signal?.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.#held.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.#held.add(wake);
    });
  }
}
