/**
 * One outbox follower among the API processes that share a search engine (OpenSearch): every
 * process runs an `OutboxLeadership`, and only the holder of a session advisory lock
 * (`LEADER_LOCK`), held on a connection of its own, follows the outbox. When the leader dies,
 * PostgreSQL ends its session and so releases the lock; the others try to take it every `pollMs`,
 * so one of them follows within about that. A leader whose connection was lost (and with it the
 * lock) notices at its next check, stops following and sits out a few checks: its pool reconnects
 * at once, and taking the lock again from the new session would keep the lead with the process
 * whose connection failed. Until it notices, `SYNC_LOCK` keeps its batches from overlapping the
 * new leader's, and every batch is idempotent.
 *
 * On taking the lead the indexer first builds the indices the engine has no documents of while
 * their tables have rows (a first start, an empty cluster), then follows.
 *
 * A leader that makes no progress (the oldest outbox row stays the same for `stallSeconds` while
 * rows wait: its batches fail or hang) gives the lead up and stays out for a few checks, so that
 * another process can try; a backlog being worked through is progress, so a long catch-up does
 * not make the lead change hands.
 */
import type { Database } from '../src/db/client.js';
import type { Indexer } from './index.js';

/** Advisory lock key (bigint space, "tagw" + a number), beside SYNC_LOCK and REINDEX_LOCK. */
export const LEADER_LOCK = 0x7461_6777_0005;

export interface LeadershipOptions {
  /** A pool of one connection, for this alone: the lock lives as long as its session. */
  session: Database;
  indexer: Indexer;
  /** How often to check the lock, or try to take it (default 1000 ms). */
  pollMs?: number;
  log?: (msg: string) => void;
  /** Give the lead up after this long without progress while rows wait (default 30 s). */
  stallSeconds?: number;
}

/** Checks a leader that gave up sits out, so that another candidate takes the lock first. */
const SIT_OUT_CHECKS = 3;

/**
 * Whether this session holds the lock: pg_locks tells a lock held from one a new session, after a
 * reconnect, no longer holds (a session lock taken twice would also need two unlocks).
 */
const HOLDS_QUERY = `select exists (
    select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
      and classid::bigint = $1 and objid::bigint = $2 and objsubid = 1) as held`;

export class OutboxLeadership {
  private readonly opts: LeadershipOptions;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = true;
  private lead = false;
  /** The oldest outbox row when last seen, and since when (for the stall rule). */
  private oldest: { id: number | undefined; sinceMs: number } = { id: undefined, sinceMs: 0 };
  private sittingOut = 0;

  constructor(options: LeadershipOptions) {
    this.opts = options;
  }

  /** Whether this process follows the outbox now. */
  get leading(): boolean {
    return this.lead;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick().finally(() => this.schedule(this.opts.pollMs ?? 1000));
    }, delayMs);
    this.timer.unref?.();
  }

  private async tick(): Promise<void> {
    const { indexer } = this.opts;
    if (this.sittingOut > 0) {
      this.sittingOut--;
      return;
    }
    if (this.lead && (await this.stalled())) {
      this.opts.log?.(`no outbox progress for ${this.opts.stallSeconds ?? 30} s: giving the lead up`);
      await this.resign();
      this.sittingOut = SIT_OUT_CHECKS;
      return;
    }
    if (this.lead) {
      if (await this.holdsLock()) return;
      this.opts.log?.('no longer leading: the lock went with the session; another process follows the outbox');
      this.lead = false;
      this.sittingOut = SIT_OUT_CHECKS;
      await indexer.stop();
      return;
    }
    if (!(await this.takeLock()) || this.stopped) return;
    this.lead = true;
    this.oldest = { id: undefined, sinceMs: Date.now() };
    this.opts.log?.('leading: this process follows the outbox');
    try {
      await indexer.repairIndexes();
    } catch (err) {
      this.opts.log?.(`index repair failed, following anyway: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!this.stopped && this.lead) indexer.start();
  }

  /** Whether this session still holds the lock; a check that fails counts as no. */
  private async holdsLock(): Promise<boolean> {
    try {
      const [row] = await this.opts.session.$client.unsafe<{ held: boolean }[]>(HOLDS_QUERY, [Math.floor(LEADER_LOCK / 2 ** 32), LEADER_LOCK % 2 ** 32]);
      return row?.held === true;
    } catch (err) {
      this.opts.log?.(`outbox leadership check failed: ${err instanceof Error ? err.message : String(err)}`);
      return false;
    }
  }

  /** An attempt to take the lock (false if another session holds it or the database is down). */
  private async takeLock(): Promise<boolean> {
    try {
      const [row] = await this.opts.session.$client.unsafe<{ taken: boolean }[]>('select pg_try_advisory_lock($1::bigint) as taken', [LEADER_LOCK]);
      return row?.taken === true;
    } catch {
      return false;
    }
  }

  /** Whether the oldest waiting outbox row has stayed the same for `stallSeconds`. */
  private async stalled(): Promise<boolean> {
    let id: number | undefined;
    try {
      const [row] = await this.opts.session.$client.unsafe<{ id: number | null }[]>('select min(id)::float8 as id from search_outbox');
      id = row?.id ?? undefined;
    } catch {
      return false; // the database is down: nobody can progress, and the lock check will tell
    }
    const now = Date.now();
    if (id === undefined || id !== this.oldest.id) {
      this.oldest = { id, sinceMs: now };
      return false;
    }
    return now - this.oldest.sinceMs >= (this.opts.stallSeconds ?? 30) * 1000;
  }

  /** Give the lock up first: another process need not wait for this one's batch to end. */
  private async resign(): Promise<void> {
    this.lead = false;
    await this.opts.session.$client.unsafe('select pg_advisory_unlock($1::bigint)', [LEADER_LOCK]).catch(() => {});
    await this.opts.indexer.stop();
  }

  /** Stop following and give the lead up at once (another process takes it at its next check). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    if (this.lead) await this.resign();
    await this.opts.session.$client.end({ timeout: 5 });
  }
}
