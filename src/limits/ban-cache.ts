/**
 * Ban lookups cached for a few seconds per identity: a ban takes effect in every API process
 * within that, without a query on every request.
 */
import { findActiveBan, type ActiveBan } from '../contexts/users/active-bans.js';
import type { Database } from '../db/client.js';

export class BanCache {
  private readonly entries = new Map<string, { ban: ActiveBan | undefined; expires: number }>();

  constructor(
    private readonly db: Database,
    private readonly ttlMs = 5_000,
  ) {}

  async lookup(who: { userId?: number; ip?: string }, nowMs = Date.now()): Promise<ActiveBan | undefined> {
    const key = `${who.userId ?? ''}|${who.ip ?? ''}`;
    const hit = this.entries.get(key);
    if (hit && hit.expires > nowMs) return hit.ban && (hit.ban.validUntil === null || hit.ban.validUntil.getTime() > nowMs) ? hit.ban : undefined;
    const ban = await findActiveBan(this.db, who);
    if (this.entries.size > 50_000) this.entries.clear();
    this.entries.set(key, { ban, expires: nowMs + this.ttlMs });
    return ban;
  }

  /** Forget what we know of an identity (after issuing a ban here). */
  remember(who: { userId?: number; ip?: string }, ban: ActiveBan, nowMs = Date.now()): void {
    this.entries.set(`${who.userId ?? ''}|${who.ip ?? ''}`, { ban, expires: nowMs + this.ttlMs });
  }
}
