/**
 * Changes to indexed records as PostgreSQL announces them on `record_changes` (migration 0002):
 * `kind:id` for every outbox row (the kinds of the outbox: `images`, `tags`, `user`, `filters`,
 * …), and `*` from bulk loaders that bypass the outbox. Caches of rendered records subscribe here
 * and drop what changed, in whichever process they live.
 *
 * A notification sent while no connection listens is lost, so a cache may only keep entries
 * while the feed is `listening`: from the first LISTEN on, and after every reconnect the feed tells its
 * subscribers that everything may have changed.
 */
import { sql } from 'drizzle-orm';
import type { Sql } from 'postgres';
import { sqlClientOf, type Database } from './client.js';
import type { Executor } from './executor.js';

export const RECORD_CHANGES_CHANNEL = 'record_changes';

/**
 * Announce changes the outbox does not carry (who a key belongs to, a user's role or watch list,
 * bans) on the same channel, delivered when `db`'s transaction commits (at once outside one).
 * Caches of callers' state drop exactly what the kinds name: `user:id`, `bans:id`.
 */
export async function announceChanges(db: Executor, changes: ReadonlyArray<{ kind: string; id: number }>): Promise<void> {
  if (changes.length === 0) return;
  const payloads = sql.join(
    changes.map((c) => sql`${`${c.kind}:${c.id}`}`),
    sql`, `,
  );
  await db.execute(sql`select pg_notify(${RECORD_CHANGES_CHANNEL}, p) from unnest(array[${payloads}]::text[]) p`);
}

/** One announced change; `kind: '*'` means anything may have changed. */
export type RecordChange = { kind: string; id: number } | { kind: '*' };

export type ChangeListener = (change: RecordChange) => void;

/** After a failed LISTEN, the next attempt waits this long. */
const RETRY_MS = 5_000;

/** Parse a notification payload; anything unexpected counts as "everything changed". */
export function parseChange(payload: string): RecordChange {
  const match = /^([a-z_]+):(\d+)$/.exec(payload);
  if (match) return { kind: match[1]!, id: Number(match[2]) };
  return { kind: '*' };
}

/**
 * The kind of the feed's own barrier announcements (`sync:<token>`, see `RecordChangeFeed.sync`); never
 * passed to subscribers.
 */
const SYNC_KIND = 'sync';

/** A barrier whose announcement is not heard within this long empties every cache instead. */
const SYNC_TIMEOUT_MS = 2_000;

export class RecordChangeFeed {
  private readonly sql: Sql;
  private readonly listeners = new Set<ChangeListener>();
  private heard = false;
  private starting = false;
  private retryAt = 0;
  /** Barriers waiting for their own announcement, by token. */
  private readonly barriers = new Map<number, () => void>();
  /**
   * Tokens are unique to this process (a random base, then a count): every process listening on
   * the channel hears every barrier, and must wake only its own.
   */
  private nextToken = Math.floor(Math.random() * 2 ** 40) * 1024;

  constructor(sql: Sql) {
    this.sql = sql;
  }

  /** Whether changes are being received now (so entries kept from here on will be dropped in time). */
  get listening(): boolean {
    if (!this.heard) this.start();
    return this.heard;
  }

  /** Begin listening (idempotent; a failure is retried on a later call). */
  start(): void {
    if (this.heard || this.starting || Date.now() < this.retryAt) return;
    this.starting = true;
    this.sql
      .listen(
        RECORD_CHANGES_CHANNEL,
        (payload) => this.hear(parseChange(payload)),
        // First LISTEN and every reconnect: what changed in between was not heard.
        () => {
          this.emit({ kind: '*' });
          this.heard = true;
          // everything was dropped: barriers sent before this have nothing left to wait for
          for (const wake of this.barriers.values()) wake();
          this.barriers.clear();
        },
      )
      .catch(() => {
        this.heard = false;
        this.retryAt = Date.now() + RETRY_MS;
      })
      .finally(() => {
        this.starting = false;
      });
  }

  /**
   * Resolves once every change committed before this call has been heard and passed to the
   * subscribers, so that a write this process answers is never followed by a stale read here.
   *
   * How: a `sync:<token>` announcement is sent in a transaction of its own, after the caller's
   * writes committed; PostgreSQL delivers notifications in commit order, so when it comes back
   * every earlier announcement has come before it. While the feed is not listening the caches are
   * bypassed, so there is nothing to wait for. A barrier not heard in time (the listening
   * connection dropped) tells the subscribers that anything may have changed.
   */
  async sync(): Promise<void> {
    if (!this.heard) return;
    const token = ++this.nextToken;
    const heard = new Promise<void>((resolve) => this.barriers.set(token, resolve));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        if (this.barriers.delete(token)) this.emit({ kind: '*' });
        resolve();
      }, SYNC_TIMEOUT_MS);
    });
    try {
      await this.sql`select pg_notify(${RECORD_CHANGES_CHANNEL}, ${`${SYNC_KIND}:${token}`})`;
      await Promise.race([heard, late]);
    } catch {
      // the announcement could not be sent: nothing tells when the changes will be heard
      this.barriers.delete(token);
      this.emit({ kind: '*' });
    } finally {
      clearTimeout(timer);
    }
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private hear(change: RecordChange): void {
    if (change.kind !== SYNC_KIND || !('id' in change)) {
      this.emit(change);
      return;
    }
    const wake = this.barriers.get(change.id);
    if (wake === undefined) return;
    this.barriers.delete(change.id);
    wake();
  }

  private emit(change: RecordChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/** One feed per connection pool, shared by every app and cache over it. */
const feeds = new WeakMap<Sql, RecordChangeFeed>();

export function recordChangeFeedOf(db: Database): RecordChangeFeed {
  const sql = sqlClientOf(db);
  let feed = feeds.get(sql);
  if (feed === undefined) feeds.set(sql, (feed = new RecordChangeFeed(sql)));
  return feed;
}
