/** Filters by id, the system filter `Default`, and the listings of system and own filters. */
import { and, asc, count, eq, inArray, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { filters } from '../../db/schema/index.js';
import type { Page, PageWindow } from '../page.js';
import type { FilterRow } from './types.js';

/** The system filter anonymous callers, and users without a filter of their own, see through. */
export const DEFAULT_FILTER_NAME = 'Default';

export async function findFilter(db: Database, id: number): Promise<FilterRow | undefined> {
  const rows = await db.select().from(filters).where(eq(filters.id, id)).limit(1);
  return rows[0];
}

export async function findDefaultFilter(db: Database): Promise<FilterRow | undefined> {
  const rows = await db
    .select()
    .from(filters)
    .where(and(eq(filters.system, true), eq(filters.name, DEFAULT_FILTER_NAME)))
    .orderBy(filters.id)
    .limit(1);
  return rows[0];
}

/** The filters of `ids` that exist, by id. */
export async function loadFilters(db: Database, ids: readonly number[]): Promise<Map<number, FilterRow>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db.select().from(filters).where(inArray(filters.id, unique));
  return new Map(rows.map((r) => [r.id, r]));
}

async function filterPage(db: Database, where: SQL, { perPage, offset }: PageWindow): Promise<Page<FilterRow>> {
  const [rows, totals] = await Promise.all([
    db.select().from(filters).where(where).orderBy(asc(filters.id)).limit(perPage).offset(offset),
    db.select({ n: count() }).from(filters).where(where),
  ]);
  return { rows, total: totals[0]?.n ?? 0 };
}

/** Every system filter, by id. */
export function listSystemFilters(db: Database, window: PageWindow): Promise<Page<FilterRow>> {
  return filterPage(db, eq(filters.system, true), window);
}

/** A user's own filters, by id. */
export function listUserFilters(db: Database, userId: number, window: PageWindow): Promise<Page<FilterRow>> {
  return filterPage(db, eq(filters.userId, userId), window);
}
