/**
 * Following the change log as it grows: LISTEN on `change_log` (notified when a transaction's rows
 * are sealed), a poll as a safety net for a lost notification, and one reader at a time, so
 * subscribers get every transaction once and in commit order. Subscribers are awaited in turn:
 * a slow one delays the next batch rather than reordering it.
 */
import { sqlClientOf, type Database } from '../../db/client.js';
import { changeGroupsAfter, latestChangeSeq } from './log.js';
import type { ChangeGroup } from './types.js';

export type ChangeSubscriber = (groups: ChangeGroup[]) => Promise<void>;

export interface FollowOptions {
  /** The poll's period; notifications normally wake the reader sooner. */
  pollMs?: number;
  /** Rows read per round. */
  batchRows?: number;
  onError?: (err: unknown) => void;
}

export class ChangeFollower {
  private readonly subscribers = new Set<ChangeSubscriber>();
  private position = 0;
  private started: Promise<void> | null = null;
  private running = false;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly options: FollowOptions = {},
  ) {}

  /** The last position handed to subscribers: everything up to it was delivered. */
  get seq(): number {
    return this.position;
  }

  /** Begin at the log's current end (idempotent). */
  start(): Promise<void> {
    this.started ??= (async () => {
      const listening = await sqlClientOf(this.db).listen('change_log', () => this.wake());
      this.unlisten = () => listening.unlisten();
      this.position = await latestChangeSeq(this.db);
      this.timer = setInterval(() => this.wake(), this.options.pollMs ?? 1000);
      this.timer.unref();
      this.wake();
    })();
    return this.started;
  }

  subscribe(subscriber: ChangeSubscriber): () => void {
    this.subscribers.add(subscriber);
    return () => this.subscribers.delete(subscriber);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.unlisten?.().catch(() => {});
  }

  /** Read what was sealed since the last round; a wake during a round runs one more round. */
  private wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.drain()
      .catch((err: unknown) => this.options.onError?.(err))
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async drain(): Promise<void> {
    const limit = this.options.batchRows ?? 500;
    for (;;) {
      const groups = await changeGroupsAfter(this.db, this.position, limit);
      if (groups.length === 0 || this.stopped) return;
      for (const subscriber of this.subscribers) {
        try {
          await subscriber(groups);
        } catch (err) {
          this.options.onError?.(err);
        }
      }
      this.position = groups[groups.length - 1]!.seq;
    }
  }
}
