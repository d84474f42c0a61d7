/**
 * One outbox follower among the API processes that share a search engine (OpenSearch): every
 * process runs an `OutboxLeadership`, and only the holder of a session advisory lock
 * (`LEADER_LOCK`), held on a connection of its own, follows the outbox. When the leader dies,
 * PostgreSQL ends its session and so releases the lock; the others try to take it every `pollMs`,
 * so one of them follows within about that. A leader whose connection was lost (and with it the
 * lock) notices at its next check and stops following; until then `SYNC_LOCK` keeps its batches
 * from overlapping the new leader's, and every batch is idempotent.
 *
 * On taking the lead the indexer first builds the indices the engine has no documents of while
 * their tables have rows (a first start, an empty cluster), then follows.
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
}

/**
 * Whether this session holds the lock, else an attempt to take it (one statement: pg_locks tells
 * a lock held from one a new session, after a reconnect, no longer holds).
 */
const LEAD_QUERY = `select case when exists (
    select 1 from pg_locks where locktype = 'advisory' and pid = pg_backend_pid() and granted
      and classid::bigint = $2 and objid::bigint = $3 and objsubid = 1)
  then true else pg_try_advisory_lock($1::bigint) end as leader`;

export class OutboxLeadership {
  private readonly opts: LeadershipOptions;
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = true;
  private lead = false;

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
    const { session, indexer } = this.opts;
    let leader = false;
    try {
      const [row] = await session.$client.unsafe<{ leader: boolean }[]>(LEAD_QUERY, [LEADER_LOCK, Math.floor(LEADER_LOCK / 2 ** 32), LEADER_LOCK % 2 ** 32]);
      leader = row?.leader === true;
    } catch (err) {
      if (this.lead) this.opts.log?.(`outbox leadership check failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (this.stopped || leader === this.lead) return;
    this.lead = leader;
    if (leader) {
      this.opts.log?.('leading: this process follows the outbox');
      try {
        await indexer.repairIndexes();
      } catch (err) {
        this.opts.log?.(`index repair failed, following anyway: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (!this.stopped && this.lead) indexer.start();
    } else {
      this.opts.log?.('no longer leading: another process follows the outbox');
      await indexer.stop();
    }
  }

  /** Stop following and give the lead up at once (another process takes it at its next check). */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    if (this.lead) {
      this.lead = false;
      await this.opts.indexer.stop();
      await this.opts.session.$client.unsafe('select pg_advisory_unlock($1::bigint)', [LEADER_LOCK]).catch(() => {});
    }
    await this.opts.session.$client.end({ timeout: 5 });
  }
}
