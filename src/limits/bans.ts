/**
 * Bans live in PostgreSQL so they survive restarts and every API process sees the same ones.
 * Lookups are cached for a few seconds per identity: a ban takes effect everywhere within that.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';

export interface ActiveBan {
  id: number;
  reason: string;
  /** null = permanent. */
  validUntil: Date | null;
}

export async function findActiveBan(db: Database, who: { userId?: number; ip?: string }): Promise<ActiveBan | undefined> {
  if (who.userId === undefined && !who.ip) return undefined;
  const ip = who.ip && isInet(who.ip) ? who.ip : null;
  const rows = await db.execute<{ id: number; reason: string; valid_until: Date | string | null }>(sql`
    select id, reason, valid_until from bans
    where enabled and (valid_until is null or valid_until > now())
      and ((${who.userId ?? null}::int is not null and user_id = ${who.userId ?? null})
        or (${ip}::inet is not null and ip >>= ${ip}::inet))
    order by valid_until desc nulls first
    limit 1`);
  const r = rows[0];
  if (!r) return undefined;
  return { id: Number(r.id), reason: r.reason, validUntil: r.valid_until === null ? null : new Date(r.valid_until) };
}

function isInet(ip: string): boolean {
  return /^[0-9a-fA-F:.]+$/.test(ip) && ip.length <= 45;
}

/** A temporary ban for repeated limit violations; `automatic` marks it as the limiter's. */
export async function issueAutomaticBan(db: Database, who: { userId?: number; ip?: string }, reason: string, durationSeconds: number): Promise<ActiveBan> {
  const rows = await db.execute<{ id: number; valid_until: Date | string }>(sql`
    insert into bans (user_id, ip, reason, automatic, valid_until)
    values (${who.userId ?? null}, ${who.userId === undefined && who.ip ? who.ip : null}::cidr, ${reason}, true, now() + ${`${durationSeconds} seconds`}::interval)
    returning id, valid_until`);
  return { id: Number(rows[0]!.id), reason, validUntil: new Date(rows[0]!.valid_until) };
}

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
