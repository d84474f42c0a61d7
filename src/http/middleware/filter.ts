/**
 * The current filter (reference §5.1, steps 4–5): the key user's current filter, else the system
 * filter named `Default`. A `filter_id` parameter overrides it when the caller may view that
 * filter (system, public, own, or any filter for moderators and admins); otherwise, and when it
 * is not an integer id, it is silently ignored (the reference answers 400 to a non-integer).
 *
 * The filter is loaded on first use, so routes that do not need it cost no query.
 */
import { and, eq } from 'drizzle-orm';
import type { MiddlewareHandler } from 'hono';
import type { Database } from '../../db/client.js';
import { filters } from '../../db/schema/index.js';
import type { AppDeps, AppEnv, FilterRow, UserRow } from '../context.js';
import { FilterIdParam } from '../schemas/params.js';
import { liveCaches } from '../read-caches.js';

export const DEFAULT_FILTER_NAME = 'Default';

export function isStaffModerator(user: UserRow | null): boolean {
  return user !== null && (user.role === 'moderator' || user.role === 'admin');
}

/** Who may see (and use) a filter. */
export function canViewFilter(user: UserRow | null, filter: FilterRow): boolean {
  return filter.system || filter.public || (user !== null && filter.userId === user.id) || isStaffModerator(user);
}

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

/** The filter a request is seen through; rows come from the app's filter cache while it is live. */
export async function resolveCurrentFilter(
  deps: Pick<AppDeps, 'db' | 'caches'>,
  user: UserRow | null,
  filterIdParam: string | undefined,
): Promise<FilterRow | null> {
  const { db } = deps;
  const cache = liveCaches(deps.caches)?.filters;
  const byId = async (id: number) => (cache ? cache.byId(id, (i) => findFilter(db, i)) : ((await findFilter(db, id)) ?? null));
  const requested = FilterIdParam.safeParse(filterIdParam).data;
  if (requested !== undefined) {
    const filter = await byId(requested);
    if (filter && canViewFilter(user, filter)) return filter;
  }
  if (user?.currentFilterId != null) {
    const own = await byId(user.currentFilterId);
    // A filter that became private to someone else is no longer usable.
    if (own && canViewFilter(user, own)) return own;
  }
  if (cache) return cache.defaultFilter(() => findDefaultFilter(db));
  return (await findDefaultFilter(db)) ?? null;
}

export function currentFilter(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    let pending: Promise<FilterRow | null> | undefined;
    c.set('currentFilter', () => {
      pending ??= resolveCurrentFilter(c.get('deps'), c.get('user'), c.req.query('filter_id'));
      return pending;
    });
    await next();
  };
}
