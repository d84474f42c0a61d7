/**
 * `q` compiled for a caller on one index: the grammar's fields for the caller's role and a context
 * (user id; for images the watch list and the filters `filter_id:` may name). A query that does
 * not compile is a `SearchRequestError` with the grammar's message and position.
 *
 * An anonymous caller's query depends on its text alone when it names no `filter_id:`, so it is
 * compiled once and kept (`compiled-cache.ts`): a minute when no date was resolved against the
 * clock, else a second.
 */
import {
  type CompileOptions,
  type Query,
  filterIdsIn,
  isQueryError,
  type FilterRule,
  type QueryContext,
  type WatchList,
} from '../../../grammar/index.js';
import { clauseTree, compileQuery } from '../../../grammar/compiler.js';
import type { SearchRequest } from '../../search/engine.js';
import { queryFields, type IndexName } from '../../search/indexes/index.js';
import { canViewFilter } from '../filters/access.js';
import { loadFilters } from '../filters/load.js';
import type { UserRow } from '../users/types.js';
import { roleOf, type SearchCaller, type SearchDeps } from './caller.js';
import { ClockReading, CompiledCache } from './compiled-cache.js';
import { queryRefused } from './errors.js';

/** How long a compiled query (or a request built with it) that read no clock is kept. */
export const CLOCK_FREE_MS = 60_000;
/** How long one that read the clock may be kept: a second, the lag search answers are allowed anyway. */
const CLOCK_READ_MS = 1_000;

/** The filters `q` names as `filter_id:N` that the caller may use, as the compiler wants them. */
async function usableFilters(deps: Pick<SearchDeps, 'db'>, user: UserRow | null, q: string): Promise<Map<number, FilterRule>> {
  const ids = filterIdsIn(q);
  const usable = new Map<number, FilterRule>();
  if (ids.length === 0) return usable;
  for (const row of (await loadFilters(deps.db, ids)).values()) {
    if (canViewFilter(user, row)) usable.set(row.id, { hiddenTagIds: row.hiddenTagIds, hiddenComplex: row.hiddenComplexStr });
  }
  return usable;
}

/** The key user's watch list for `my:watched`; spoilers of the current filter left out if asked. */
async function watchListOf(caller: SearchCaller, user: UserRow): Promise<WatchList> {
  const list: WatchList = {
    tagIds: user.watchedTagIds,
    include: user.watchedImagesQueryStr,
    exclude: user.watchedImagesExcludeStr,
  };
  if (user.noSpoileredInWatched) {
    const filter = await caller.currentFilter();
    if (filter) list.spoilered = { tagIds: filter.spoileredTagIds, complex: filter.spoileredComplexStr };
  }
  return list;
}

/** What the compiler needs to know about the caller to compile `q` on `index`. */
async function queryContext(deps: Pick<SearchDeps, 'db'>, caller: SearchCaller, index: IndexName, q: string): Promise<QueryContext> {
  const { user } = caller;
  const context: QueryContext = { userId: user?.id ?? null };
  if (index !== 'images') return context;
  const usable = await usableFilters(deps, user, q);
  context.filters = (id) => usable.get(id);
  if (user !== null) context.watchList = await watchListOf(caller, user);
  return context;
}

/** How `q` is compiled for the caller on `index`. */
async function compileOptionsFor(deps: Pick<SearchDeps, 'db'>, caller: SearchCaller, index: IndexName, q: string): Promise<CompileOptions> {
  return { fields: queryFields[index], role: roleOf(caller.user), context: await queryContext(deps, caller, index, q) };
}

/** `compile(q, options)`; a `QueryError` becomes a `SearchRequestError` with its message and position. */
function compiling<T>(q: string, options: CompileOptions, compile: (q: string, options: CompileOptions) => T): T {
  try {
    return compile(q, options);
  } catch (err) {
    if (isQueryError(err)) throw queryRefused(err, q);
    throw err;
  }
}

/** Queries compiled for anonymous callers, by index and text. */
const anonymousQueries = new CompiledCache<CompiledQuery>('search_anonymous_queries');

/** A query compiled, and whether it is the same at any time. */
export interface CompiledQuery {
  query: Query;
  /** No date was resolved against the clock. */
  clockFree: boolean;
}

/** How long something compiled is kept (`CompiledCache.get`): a minute when it read no clock, else a second. */
export const lifetimeOf = (compiled: { clockFree: boolean }) => (compiled.clockFree ? CLOCK_FREE_MS : undefined);

/** `q` compiled for an anonymous caller, when it names no `filter_id:` (else undefined). */
export function compileAnonymous(index: IndexName, q: string): CompiledQuery | undefined {
  if (filterIdsIn(q).length > 0) return undefined;
  return anonymousQueries.get(
    `${index}\u0000${q}`,
    () => {
      const now = new ClockReading();
      const options: CompileOptions = { fields: queryFields[index], role: roleOf(null), context: { userId: null, filters: () => undefined, now } };
      const query = compiling(q, options, compileQuery);
      return { query, clockFree: !now.read };
    },
    lifetimeOf,
  );
}

/** `q` compiled for the caller on `index`. */
export async function compileFor(deps: Pick<SearchDeps, 'db'>, caller: SearchCaller, index: IndexName, q: string): Promise<CompiledQuery> {
  const anonymous = caller.user === null ? compileAnonymous(index, q) : undefined;
  if (anonymous !== undefined) return anonymous;
  const options = await compileOptionsFor(deps, caller, index, q);
  const now = new ClockReading();
  const query = compiling(q, { ...options, context: { ...options.context, now } }, compileQuery);
  return { query, clockFree: !now.read };
}

/**
 * `request` marked for the engine (`SearchRequest.keepMs`) to keep its answer a second at most
 * when what it was built of read the clock: its text names that second, and is not asked again
 * once it is past, so the answer would only take the place of answers asked again.
 */
export function keptNoLongerThanItsClock<R extends SearchRequest>(request: R, clockFree: boolean): R {
  if (!clockFree) request.keepMs = CLOCK_READ_MS;
  return request;
}

/**
 * `q` compiled for the caller as `/search/explain` shows it: the query, and, when `withClauses`,
 * its clause tree (each part with its DSL, for explaining a match on one image).
 */
export async function explainFor(
  deps: Pick<SearchDeps, 'db'>,
  caller: SearchCaller,
  index: IndexName,
  q: string,
  withClauses: boolean,
): Promise<{ query: Query; clauses: ReturnType<typeof clauseTree> | undefined }> {
  const options = await compileOptionsFor(deps, caller, index, q);
  const query = compiling(q, options, compileQuery);
  return { query, clauses: withClauses ? compiling(q, options, clauseTree) : undefined };
}
