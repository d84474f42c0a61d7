/**
 * The ban in force for each identity (user id and address), kept in memory.
 *
 * Freshness: given the record-change feed (`src/db/record-change-feed.ts`), an answer is kept until a ban is
 * made or lifted anywhere (`bans:id`, announced in the ban's transaction by
 * `src/contexts/users/bans.ts` and `active-bans.ts`; a ban on an address range can concern any
 * identity, so every answer goes) or the feed reconnects (`*`), and a ban's answer ends with the
 * ban. While the feed is not listening, and without one, answers are kept for `ttlMs` (a ban takes
 * effect in every process within that). When PostgreSQL cannot be reached, the last answer known
 * for an identity is served, however old: a ban cannot be made or lifted meanwhile, and searches
 * keep working from memory.
 */
import { findActiveBan, type ActiveBan } from '../contexts/users/active-bans.js';
import type { RecordChangeFeed, RecordChange } from '../db/record-change-feed.js';
import type { Database } from '../db/client.js';
import { BoundedMap } from '../lib/bounded-map.js';
import { CacheRegistry, type CacheCounts } from '../lib/cache-registry.js';

/** Identities kept at most; past that the least used go. */
const MAX_ENTRIES = 50_000;

interface Entry {
  ban: ActiveBan | undefined;
  /** When the answer was read (for the ttl while changes cannot be heard). */
  readAt: number;
}

export class BanCache {
  private readonly entries = new BoundedMap<string, Entry>({ maxEntries: MAX_ENTRIES });
  /** Bumped by every change heard: a read that overlapped one must not be kept. */
  private changeCount = 0;
  private readonly counts: CacheCounts;

  constructor(
    private readonly db: Database,
    private readonly ttlMs = 5_000,
    private readonly feed?: RecordChangeFeed,
    registry = new CacheRegistry(),
  ) {
    feed?.subscribe((change) => this.onChange(change));
    const invalidatedBy = ['bans', '*', `age ${ttlMs} ms while changes cannot be heard`];
    this.counts = registry.register({ name: 'bans', budget: { entries: MAX_ENTRIES }, invalidatedBy, held: () => ({ entries: this.entries.size }) });
  }

  onChange(change: RecordChange): void {
    if (change.kind !== '*' && change.kind !== 'bans') return;
    this.changeCount++;
    this.entries.clear();
  }

  /**
   * The ban in force from what is remembered, when that answer is still good (`{ ban }`, `ban`
   * undefined for none); undefined when only `lookup` can tell. Lets a caller known to be
   * unbanned pass without waiting on a promise.
   */
  known(who: { userId?: number; ip?: string }, nowMs = Date.now()): { ban: ActiveBan | undefined } | undefined {
    const hit = this.entries.get(identity(who));
    if (hit === undefined || !this.fresh(hit, nowMs)) return undefined;
    this.counts.hit();
    return { ban: inForce(hit.ban, nowMs) };
  }

  private fresh(hit: Entry, nowMs: number): boolean {
    return this.feed?.listening === true || hit.readAt + this.ttlMs > nowMs;
  }

  async lookup(who: { userId?: number; ip?: string }, nowMs = Date.now()): Promise<ActiveBan | undefined> {
    const key = identity(who);
    const hit = this.entries.get(key);
    if (hit && this.fresh(hit, nowMs)) {
      this.counts.hit();
      return inForce(hit.ban, nowMs);
    }
    this.counts.miss();
    const mark = this.changeCount;
    let ban: ActiveBan | undefined;
    try {
      ban = await findActiveBan(this.db, who);
    } catch (err) {
      if (hit) return inForce(hit.ban, nowMs);
      throw err;
    }
    if (mark === this.changeCount) this.entries.set(key, { ban, readAt: nowMs });
    return ban;
  }

  /**
   * Know at once of a ban issued here (the announcement of it arrives a moment later): it counts
   * as a change heard. Every answer goes, as at the announcement: the ban concerns other
   * identities too (a ban of a user is also the ban of that user from each address, a request's
   * identity), and a lookup still under way read PostgreSQL before it and must not put its "none"
   * back.
   */
  remember(who: { userId?: number; ip?: string }, ban: ActiveBan, nowMs = Date.now()): void {
    this.changeCount++;
    this.entries.clear();
    this.entries.set(identity(who), { ban, readAt: nowMs });
  }
}

const identity = (who: { userId?: number; ip?: string }) => `${who.userId ?? ''}|${who.ip ?? ''}`;

const inForce = (ban: ActiveBan | undefined, nowMs: number) => (ban && (ban.validUntil === null || ban.validUntil.getTime() > nowMs) ? ban : undefined);
