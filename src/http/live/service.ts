/**
 * The live side of one process: follows the change log (one reader for everything), feeds the
 * firehose's sockets and the live searches, and prunes the log past its retention. Started on
 * first use, so an app nobody subscribes to costs no LISTEN connection.
 */
import { ChangeFollower } from '../../contexts/changes/follow.js';
import { pruneChangeLog } from '../../contexts/changes/log.js';
import type { ChangeGroup } from '../../contexts/changes/types.js';
import type { AppDeps } from '../env/context.js';
import type { RenderDeps } from '../render/deps.js';
import { planFirehose } from './firehose-events.js';
import { renderFirehose } from './firehose-render.js';
import { LiveSearches } from './searches.js';
import type { FirehoseSubscriber, Live, LiveEvent, LiveQuery, LiveSubscriber } from './types.js';

const PRUNE_EVERY_MS = 3_600_000;

/** What the live side reads: rendering's, and where to report its failures. */
export type LiveDeps = RenderDeps & Pick<AppDeps, 'logger'>;

export class LiveService implements Live {
  readonly follower: ChangeFollower;
  readonly searches: LiveSearches;
  private readonly firehose = new Set<FirehoseSubscriber>();
  private pruneTimer: NodeJS.Timeout | undefined;
  private started: Promise<void> | null = null;
  /** How to close each admitted connection; its size is the number open. */
  private readonly open = new Set<() => void>();
  private stopped = false;

  constructor(private readonly deps: LiveDeps) {
    const report = (err: unknown) => deps.logger?.error({ err }, 'live: following the change log failed');
    this.follower = new ChangeFollower(deps.db, { onError: report });
    this.searches = new LiveSearches(deps);
    this.follower.subscribe((groups) => this.searches.onChanges(groups));
    this.follower.subscribe((groups) => this.broadcast(groups));
  }

  admit(close: () => void): (() => void) | null {
    if (this.stopped || this.open.size >= this.deps.config.liveMaxConnections) return null;
    // One entry per connection, even when two pass the same function.
    const entry = () => close();
    this.open.add(entry);
    return () => void this.open.delete(entry);
  }

  /** Follow the log from its current end (idempotent). */
  start(): Promise<void> {
    this.started ??= this.follower.start().then(() => {
      this.pruneTimer = setInterval(() => void this.prune(), PRUNE_EVERY_MS);
      this.pruneTimer.unref();
    });
    return this.started;
  }

  /** Delete what is older than the retention; returns how many rows went. */
  prune(now = new Date()): Promise<number> {
    const before = new Date(now.getTime() - this.deps.config.changeLogRetentionDays * 86_400_000);
    return pruneChangeLog(this.deps.db, before).catch((err: unknown) => {
      this.deps.logger?.error({ err }, 'live: pruning the change log failed');
      return 0;
    });
  }

  get seq(): number {
    return this.follower.seq;
  }

  subscribeSearch(q: LiveQuery, subscriber: LiveSubscriber): () => void {
    return this.searches.subscribe(q, subscriber);
  }

  replaySearch(q: LiveQuery, afterSeq: number): Promise<{ events: LiveEvent[]; through: number }> {
    return this.searches.replay(q, afterSeq);
  }

  subscribeFirehose(subscriber: FirehoseSubscriber): () => void {
    this.firehose.add(subscriber);
    return () => this.firehose.delete(subscriber);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.pruneTimer);
    for (const close of [...this.open]) close();
    await this.follower.stop();
  }

  private async broadcast(groups: ChangeGroup[]): Promise<void> {
    if (this.firehose.size === 0) return;
    for (const group of groups) {
      const events = await renderFirehose(this.deps, planFirehose(group));
      if (events.length === 0) continue;
      for (const subscriber of this.firehose) subscriber(events);
    }
  }
}
