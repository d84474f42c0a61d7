/**
 * Follows the outbox: LISTENs on `search_outbox` (every outbox insert notifies it on commit) and
 * polls as a fallback, debounces bursts, and drains batches until the outbox is empty. A change
 * committed through the database reaches the engine within the debounce plus one batch, and within
 * a poll interval if a notification is lost (e.g. while the listening connection reconnects).
 */
import type { Database } from '../src/db/client.js';

export interface FollowerOptions {
  db: Database;
  /** Apply one batch; resolves to the number of outbox rows processed (0: nothing to do). */
  runBatch: () => Promise<number>;
  /** Polling interval in ms (default 1000). */
  pollMs?: number;
  /** Delay after a notification before syncing, to gather a burst (default 15 ms). */
  debounceMs?: number;
  /** Delay before retrying after a failed batch (default 1000 ms). */
  retryMs?: number;
  log?: (msg: string) => void;
  /** Called after each drain that applied something (e.g. to schedule a snapshot). */
  onDrained?: (rows: number) => void;
}

export class OutboxFollower {
  private readonly opts: FollowerOptions;
  private running = false;
  private stopped = true;
  private again = false;
  private debounce: NodeJS.Timeout | undefined;
  private poll: NodeJS.Timeout | undefined;
  private current: Promise<void> | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private retryAt = 0;

  constructor(options: FollowerOptions) {
    this.opts = options;
  }

  get isRunning(): boolean {
    return !this.stopped;
  }

  /** Start listening and polling; the first sync runs at once. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    const { db } = this.opts;
    db.$client
      .listen(
        'search_outbox',
        () => this.kick(),
        // (re)connected: anything committed while we were not listening is waiting
        () => this.kick(),
      )
      .then((sub) => {
        if (this.stopped) void sub.unlisten().catch(() => {});
        else this.unlisten = () => sub.unlisten();
      })
      .catch((err: unknown) => this.opts.log?.(`outbox listen failed, polling only: ${String(err)}`));
    this.poll = setInterval(() => this.kick(0), this.opts.pollMs ?? 1000);
    this.poll.unref?.();
    this.kick(0);
  }

  /** Schedule a drain (debounced). */
  kick(delay = this.opts.debounceMs ?? 15): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.debounce) return;
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.current = this.drain();
    }, delay);
  }

  private async drain(): Promise<void> {
    if (this.running || this.stopped) return;
    if (Date.now() < this.retryAt) return;
    this.running = true;
    let total = 0;
    try {
      do {
        this.again = false;
        for (;;) {
          if (this.stopped) return;
          const n = await this.opts.runBatch();
          total += n;
          if (n === 0) break;
        }
      } while (this.again && !this.stopped);
    } catch (err) {
      this.retryAt = Date.now() + (this.opts.retryMs ?? 1000);
      this.opts.log?.(`outbox sync failed, retrying: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      this.running = false;
      if (total > 0) this.opts.onDrained?.(total);
    }
  }

  /** Stop listening and polling; resolves once the batch in progress has finished. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = undefined;
    if (this.poll) clearInterval(this.poll);
    this.poll = undefined;
    const unlisten = this.unlisten;
    this.unlisten = undefined;
    await unlisten?.().catch(() => {});
    await this.current;
  }
}
