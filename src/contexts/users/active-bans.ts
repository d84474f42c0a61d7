/**
 * Bans in force: the one that applies to a user or an address, and the temporary bans the request
 * limiter issues. Bans live in PostgreSQL so they survive restarts and every API process sees the
 * same ones.
 */
import { sql } from 'drizzle-orm';
import { announceChanges } from '../../db/record-change-feed.js';
import type { Database } from '../../db/client.js';

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

/** The advisory lock space (two-key form) in which automatic bans of one caller are ordered. */
const AUTOMATIC_BAN_LOCK = 1_952_933_736;

/**
 * A temporary ban for repeated limit violations; `automatic` marks it as the limiter's. Idempotent
 * across processes: under the caller's advisory lock, an automatic ban of the same caller still in
 * force is returned instead of a second one.
 */
export async function issueAutomaticBan(db: Database, who: { userId?: number; ip?: string }, reason: string, durationSeconds: number): Promise<ActiveBan> {
  const userId = who.userId ?? null;
  const ip = who.userId === undefined && who.ip ? who.ip : null;
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${AUTOMATIC_BAN_LOCK}, hashtext(${`${userId ?? ''}|${ip ?? ''}`}))`);
    const [existing] = await tx.execute<{ id: number; reason: string; valid_until: Date | string }>(sql`
      select id, reason, valid_until from bans
      where automatic and enabled and valid_until > now()
        and (user_id = ${userId} or (${userId}::int is null and user_id is null and ip = ${ip}::cidr))
      order by valid_until desc limit 1`);
    if (existing) return { id: Number(existing.id), reason: existing.reason, validUntil: new Date(existing.valid_until) };
    const rows = await tx.execute<{ id: number; valid_until: Date | string }>(sql`
      insert into bans (user_id, ip, reason, automatic, valid_until)
      values (${userId}, ${ip}::cidr, ${reason}, true, now() + ${`${durationSeconds} seconds`}::interval)
      returning id, valid_until`);
    await announceChanges(tx, [{ kind: 'bans', id: Number(rows[0]!.id) }]);
    return { id: Number(rows[0]!.id), reason, validUntil: new Date(rows[0]!.valid_until) };
  });
}
