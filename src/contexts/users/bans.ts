/** Bans of users and IP networks: issuing, listing and lifting them, and the parsing of their terms. */
import { and, desc, eq, gt, isNull, or, sql } from 'drizzle-orm';
import ipaddr from 'ipaddr.js';
import { announceChanges } from '../../db/record-change-feed.js';
import type { Database } from '../../db/client.js';
import { bans, users } from '../../db/schema/index.js';
import { AdminError } from '../errors.js';
import { findUser } from './accounts.js';
import type { BanRow } from './types.js';

const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, y: 365 * 86_400_000 } as const;

/** `7d`, `12h`, `2w`, `1y` as milliseconds. */
export function parseDuration(text: string): number {
  const m = /^(\d+)\s*([hdwy])$/.exec(text.trim());
  if (!m) throw new AdminError(`invalid duration ${JSON.stringify(text)} (use a number and h, d, w or y, e.g. 7d)`);
  const n = Number(m[1]);
  if (n <= 0) throw new AdminError(`invalid duration ${JSON.stringify(text)}: must be positive`);
  return n * UNIT_MS[m[2] as keyof typeof UNIT_MS];
}

/**
 * An end date: `YYYY-MM-DD` means through that day (the ban ends at the next midnight UTC); a full
 * RFC 3339 datetime is taken as is.
 */
export function parseUntil(text: string, now = new Date()): Date {
  const t = text.trim();
  let date: Date;
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) {
    date = new Date(`${t}T00:00:00Z`);
    if (!Number.isNaN(date.getTime())) {
      if (date.toISOString().slice(0, 10) !== t) throw new AdminError(`invalid date ${JSON.stringify(text)}`);
      date = new Date(date.getTime() + UNIT_MS.d);
    }
  } else if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(t)) {
    date = new Date(t);
  } else {
    throw new AdminError(`invalid date ${JSON.stringify(text)} (use YYYY-MM-DD or an RFC 3339 datetime)`);
  }
  if (Number.isNaN(date.getTime())) throw new AdminError(`invalid date ${JSON.stringify(text)}`);
  if (date.getTime() <= now.getTime()) throw new AdminError(`the date ${JSON.stringify(text)} is in the past`);
  return date;
}

/** The end of a ban from `--until` or `--for` (at most one), or null for a permanent ban. */
export function banEnd(opts: { until?: string; for?: string }, now = new Date()): Date | null {
  if (opts.until !== undefined && opts.for !== undefined) throw new AdminError('give --until or --for, not both');
  if (opts.until !== undefined) return parseUntil(opts.until, now);
  if (opts.for !== undefined) return new Date(now.getTime() + parseDuration(opts.for));
  return null;
}

/**
 * An address or network (`203.0.113.7`, `203.0.113.0/24`, `2001:db8::/32`) as the network in
 * canonical CIDR form; host bits below the mask are cleared (`10.1.2.3/8` → `10.0.0.0/8`).
 */
export function normaliseCidr(text: string): string {
  const t = text.trim();
  try {
    if (t.includes('/')) {
      const [addr, bits] = ipaddr.parseCIDR(t);
      const network = addr.kind() === 'ipv4'
        ? ipaddr.IPv4.networkAddressFromCIDR(t)
        : ipaddr.IPv6.networkAddressFromCIDR(t);
      return `${network.toString()}/${bits}`;
    }
    const addr = ipaddr.parse(t);
    if (!ipaddr.isValid(t)) throw new Error('invalid');
    return `${addr.toString()}/${addr.kind() === 'ipv4' ? 32 : 128}`;
  } catch {
    throw new AdminError(`invalid IP address or CIDR ${JSON.stringify(text)}`);
  }
}

export interface BanInput {
  reason: string;
  note?: string;
  until: Date | null;
}

function checkReason(reason: string): string {
  const r = reason.trim();
  if (r === '') throw new AdminError('a ban needs a reason (--reason)');
  return r;
}

export async function banUser(db: Database, userName: string, input: BanInput): Promise<BanRow> {
  const user = await findUser(db, userName);
  return insertBan(db, { userId: user.id, reason: checkReason(input.reason), note: input.note ?? '', validUntil: input.until });
}

export async function banIp(db: Database, address: string, input: BanInput): Promise<BanRow> {
  const ip = normaliseCidr(address);
  return insertBan(db, { ip, reason: checkReason(input.reason), note: input.note ?? '', validUntil: input.until });
}

/** A ban, announced (`bans:id`) in its transaction so that every process's ban cache drops its answers. */
function insertBan(db: Database, values: typeof bans.$inferInsert): Promise<BanRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(bans).values(values).returning();
    await announceChanges(tx, [{ kind: 'bans', id: row!.id }]);
    return row!;
  });
}

export interface BanListing extends BanRow {
  userName: string | null;
}

/** Bans in force (enabled and not expired), newest first; with `all`, every ban ever made. */
export async function listBans(db: Database, opts: { all?: boolean } = {}): Promise<BanListing[]> {
  const inForce = and(eq(bans.enabled, true), or(isNull(bans.validUntil), gt(bans.validUntil, sql`now()`)));
  const rows = await db
    .select({ ban: bans, userName: users.name })
    .from(bans)
    .leftJoin(users, eq(users.id, bans.userId))
    .where(opts.all ? undefined : inForce)
    .orderBy(desc(bans.id));
  return rows.map((r) => ({ ...r.ban, userName: r.userName }));
}

/** Lift a ban (it stays on record, disabled). */
export async function unban(db: Database, id: number): Promise<BanRow> {
  const [row] = await db.select().from(bans).where(eq(bans.id, id));
  if (!row) throw new AdminError(`no ban with id ${id}`);
  if (!row.enabled) throw new AdminError(`ban ${id} is already lifted`);
  return db.transaction(async (tx) => {
    const [updated] = await tx.update(bans).set({ enabled: false }).where(eq(bans.id, id)).returning();
    await announceChanges(tx, [{ kind: 'bans', id }]);
    return updated!;
  });
}
