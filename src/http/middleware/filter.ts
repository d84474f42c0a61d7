/**
 * The current filter (reference §5.1, steps 4–5): the key user's current filter, else the system
 * filter named `Default`. A `filter_id` parameter overrides it when the caller may view that
 * filter (system, public, own, or any filter for moderators and admins); otherwise, and when it
 * is not an integer id, it is silently ignored (the reference answers 400 to a non-integer).
 *
 * The filter is loaded on first use, so routes that do not need it cost no query.
 */
import { canViewFilter } from '../../contexts/filters/access.js';
import { findDefaultFilter, findFilter } from '../../contexts/filters/load.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import type { UserRow } from '../../contexts/users/types.js';
import type { AppContext, AppDeps } from '../context.js';
import { FilterIdParam } from '../schemas/params.js';
import { liveCaches } from '../../caches/read-caches.js';
import type { FilterRowCache } from '../../caches/filter-row-cache.js';
import { queryParam } from '../request-query.js';

/** A filter by id, from the cache while it is live. (A function of its own: a closure made per request costs a name.) */
async function filterById(db: AppDeps['db'], cache: FilterRowCache | undefined, id: number): Promise<FilterRow | null> {
  return cache ? cache.byId(id, (i) => findFilter(db, i)) : ((await findFilter(db, id)) ?? null);
}

/** The filter a request is seen through; rows come from the app's filter cache while it is live. */
export async function resolveCurrentFilter(
  deps: Pick<AppDeps, 'db' | 'caches'>,
  user: UserRow | null,
  filterIdParam: string | undefined,
): Promise<FilterRow | null> {
  const { db } = deps;
  const cache = liveCaches(deps.caches)?.filters;
  // most requests name no filter: parsing `undefined` would build a refusal to throw away
  const requested = filterIdParam === undefined ? undefined : FilterIdParam.safeParse(filterIdParam).data;
  if (requested !== undefined) {
    const filter = await filterById(db, cache, requested);
    if (filter && canViewFilter(user, filter)) return filter;
  }
  if (user?.currentFilterId != null) {
    const own = await filterById(db, cache, user.currentFilterId);
    // A filter that became private to someone else is no longer usable.
    if (own && canViewFilter(user, own)) return own;
  }
  if (cache) return cache.defaultFilter(() => findDefaultFilter(db));
  return (await findDefaultFilter(db)) ?? null;
}

/** Gives the request its `currentFilter`, resolved on first use. */
export function attachCurrentFilter(c: AppContext): void {
  let pending: Promise<FilterRow | null> | undefined;
  c.set('currentFilter', () => {
    pending ??= resolveCurrentFilter(c.get('deps'), c.get('user'), queryParam(c, 'filter_id'));
    return pending;
  });
}
