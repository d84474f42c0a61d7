/**
 * Planning a search: a caller, `q` and the parameters → one engine request, with the compiled
 * query, the current filter compiled once (`filter.ts`, whose same compiled form decides the
 * spoilers of the listed images) and the request's visibility, sort and page; and running it on
 * the engine. The routes (`/search/*`, live searches, the workbench, reverse searches) call
 * these with a plain caller and render what comes back.
 *
 * Deliberate choices:
 * - A current filter whose hidden complex expression does not compile hides nothing through that
 *   expression (the reference turns it into `match_all`, hiding every image); it is logged once.
 * - `del` (include/only/only-deleted hidden images) is honoured for moderators and admins only;
 *   the reference lets anyone use `del=1`.
 */
import type { Query } from '../../../grammar/index.js';
import type { SearchRequest } from '../../search/engine.js';
import type { IndexName } from '../../search/indexes/index.js';
import {
  buildCommentSearch,
  buildFilterSearch,
  buildGallerySearch,
  buildImageSearch,
  buildPostSearch,
  buildTagSearch,
  parseImageSort,
} from '../../search/requests/index.js';
import type { FilterRow } from '../filters/types.js';
import { filterRowNumber } from '../filters/row-number.js';
import { isStaffModerator } from '../users/roles.js';
import type { UserRow } from '../users/types.js';
import type { SearchCaller, SearchDeps } from './caller.js';
import { CLOCK_FREE_MS, type CompiledQuery, compileAnonymous, compileFor, keptNoLongerThanItsClock } from './compile.js';
import { CompiledCache } from './compiled-cache.js';
import { SearchRequestError } from './errors.js';
import { compiledFilterOf, hiddenBy } from './filter.js';

/** One page of results. */
export interface PageWindow {
  page: number;
  perPage: number;
}

/** The parameters of `/search/images` a plan reads. */
export interface ImageSearchInput extends PageWindow {
  q: string;
  sf?: string | undefined;
  sd?: string | undefined;
  /** `1`, `only` or `deleted`: for moderators and admins only. */
  del?: string | undefined;
  /** `1`: the caller's own hidden images too. */
  hidden?: string | undefined;
}

export interface SearchPlan {
  /** The caller's current filter the request hides by (null: none, or not read for this index). */
  filter: FilterRow | null;
  request: SearchRequest;
  /** The same request object answered these parameters before (an anonymous caller's, kept). */
  reused: boolean;
}

/** Assistants, moderators and admins: they see hidden and unapproved comments. */
const isCommentStaff = (user: UserRow | null) => user !== null && user.role !== 'user';

/** `del`, for moderators and admins: `1` includes hidden images, `only`/`deleted` restrict to them. */
function deletedParam(user: UserRow | null, del: string | undefined): { deleted?: 'include' | 'only' | 'deleted' } {
  if (!isStaffModerator(user)) return {};
  switch (del) {
    case '1':
      return { deleted: 'include' };
    case 'only':
      return { deleted: 'only' };
    case 'deleted':
      return { deleted: 'deleted' };
    default:
      return {};
  }
}

/**
 * Engine requests of anonymous searches, by index, the current filter's row (when the request
 * depends on it) and the parameters they depend on: a page asked again is neither compiled nor
 * built again, and its request is the same frozen object, whose JSON text the engine thread
 * keeps. A filter edited is a new row (contexts/filters/row-number.ts), so it never meets the
 * requests of its old version. An entry lives as long as the compiled query in it, a second when
 * the filter hides by a complex expression (which may hold relative dates). Requests with a seed
 * drawn for them (`oneOff`) are not kept.
 */
const anonymousRequests = new CompiledCache<KeptRequest>('search_anonymous_requests');

interface KeptRequest {
  /** Undefined when `q` names a filter (its compilation depends on the caller). */
  request: SearchRequest | undefined;
  /** 0: not kept (see `CompiledCache.get`); undefined: a second. */
  lifetimeMs: number | undefined;
}

/**
 * The request `build` makes of `q` compiled for an anonymous caller on `index`, kept under `key`
 * (what else it depends on); its request is undefined when `q` names a filter (`filter_id:`).
 */
function keptAnonymousRequest(index: IndexName, key: string, q: string, build: (compiled: CompiledQuery) => SearchRequest): KeptRequest {
  return anonymousRequests.get(
    `${index}\u0000${key}\u0000${q}`,
    (): KeptRequest => {
      const compiled = compileAnonymous(index, q);
      if (compiled === undefined) return { request: undefined, lifetimeMs: 0 };
      const request = build(compiled);
      if (request.oneOff) return { request, lifetimeMs: 0 };
      // one that read the clock (its query or the filter's) lives a second, as the engine keeps its answer
      return { request: Object.freeze(request), lifetimeMs: request.keepMs === undefined ? CLOCK_FREE_MS : undefined };
    },
    (entry) => entry.lifetimeMs,
    sameRequest,
  );
}

/** Whether a request built again is the one kept: the same text, kept as long. */
const sameRequest = (kept: KeptRequest, fresh: KeptRequest): boolean =>
  kept.request !== undefined && fresh.request !== undefined && kept.lifetimeMs === fresh.lifetimeMs && JSON.stringify(kept.request) === JSON.stringify(fresh.request);

/**
 * The current filter, read before `q` is compiled (requests are kept by filter row); a filter
 * that cannot be used is answered after a query that does not compile, as when `q` came first.
 */
async function currentFilterAfter(deps: SearchDeps, caller: SearchCaller, index: IndexName, q: string): Promise<FilterRow | null> {
  try {
    return await caller.currentFilter();
  } catch (err) {
    await compileFor(deps, caller, index, q);
    throw err;
  }
}

/** The engine request of `/search/images` for the caller, of `q` compiled for them. */
function imageRequest(deps: SearchDeps, caller: SearchCaller, input: ImageSearchInput, filter: FilterRow | null, compiled: CompiledQuery): SearchRequest {
  const { user } = caller;
  const request = buildImageSearch({
    query: compiled.query,
    sort: parseImageSort(input.sf, input.sd),
    filters: hiddenBy(deps, filter, user),
    ...(user === null ? {} : { userId: user.id, showOwnHidden: input.hidden === '1' }),
    ...deletedParam(user, input.del),
    page: input.page,
    perPage: input.perPage,
  });
  return keptNoLongerThanItsClock(request, compiled.clockFree && (filter === null || compiledFilterOf(filter, user).clockFree));
}

/** `/search/images` planned for the caller; an anonymous caller's request is kept (`reused` when asked again). */
export async function planImageSearch(deps: SearchDeps, caller: SearchCaller, input: ImageSearchInput): Promise<SearchPlan> {
  const { q } = input;
  const filter = await currentFilterAfter(deps, caller, 'images', q);
  // (closures passed, not named: under tsx a named closure made per request costs a `__name`)
  if (caller.user === null) {
    // what the request of an anonymous caller depends on (`del` and `hidden` are not theirs)
    const key = `${filterRowNumber(filter)}\u0000${input.page}\u0000${input.perPage}\u0000${input.sf ?? ''}\u0000${input.sd ?? ''}`;
    const kept = keptAnonymousRequest('images', key, q, (compiled) => imageRequest(deps, caller, input, filter, compiled));
    if (kept.request !== undefined) return { filter, request: kept.request, reused: kept.lifetimeMs !== 0 };
  }
  return { filter, request: imageRequest(deps, caller, input, filter, await compileFor(deps, caller, 'images', q)), reused: false };
}

/** The indexes other than images, whose searches take `q` and a page only. */
export type SimpleIndex = Exclude<IndexName, 'images'>;

/** The request of a search on an index other than images, kept by the engine as long as its query allows. */
function simpleRequest(caller: SearchCaller, index: SimpleIndex, compiled: CompiledQuery, window: PageWindow, filter: FilterRow | null): SearchRequest {
  return keptNoLongerThanItsClock(buildSimpleRequest(caller, index, compiled.query, window, filter), compiled.clockFree);
}

/** The request of `query` on an index other than images; `filter` is the current one (comments hide by it). */
function buildSimpleRequest(caller: SearchCaller, index: SimpleIndex, query: Query, window: PageWindow, filter: FilterRow | null): SearchRequest {
  const { user } = caller;
  const page = { page: window.page, perPage: window.perPage };
  switch (index) {
    case 'comments':
      return buildCommentSearch({
        query,
        hiddenTagIds: filter?.hiddenTagIds ?? [],
        staff: isCommentStaff(user),
        ...(user === null ? {} : { userId: user.id }),
        ...page,
      });
    case 'posts':
      return buildPostSearch({ query, ...page });
    case 'galleries':
      return buildGallerySearch({ query, ...page });
    case 'tags':
      return buildTagSearch({ query, ...page });
    case 'filters':
      return buildFilterSearch({ query, ...(user === null ? {} : { userId: user.id }), ...page });
  }
}

/** A search of `index` (not images) planned for the caller; an anonymous caller's request is kept. */
export async function planSearch(deps: SearchDeps, caller: SearchCaller, index: SimpleIndex, q: string, window: PageWindow): Promise<SearchPlan> {
  const filter = index === 'comments' ? await currentFilterAfter(deps, caller, index, q) : null;
  if (caller.user === null) {
    const key = `${filterRowNumber(filter)}\u0000${window.page}\u0000${window.perPage}`;
    const kept = keptAnonymousRequest(index, key, q, (compiled) => simpleRequest(caller, index, compiled, window, filter));
    if (kept.request !== undefined) return { filter, request: kept.request, reused: kept.lifetimeMs !== 0 };
  }
  return { filter, request: simpleRequest(caller, index, await compileFor(deps, caller, index, q), window, filter), reused: false };
}

/**
 * What `/search/images?q=` would match for this caller, as one query for in-process matching
 * (live searches): the compiled `q` with visibility and the current filter. An empty `q` is
 * refused: a live search must ask for something.
 */
export async function planLiveImageQuery(deps: SearchDeps, caller: SearchCaller, q: string | undefined): Promise<{ query: Query; filter: FilterRow | null }> {
  if (q === undefined || q.trim() === '') throw new SearchRequestError('q is required');
  const { user } = caller;
  const { query } = await compileFor(deps, caller, 'images', q);
  const filter = await caller.currentFilter();
  const request = buildImageSearch({
    query,
    sort: { sort: [] },
    filters: hiddenBy(deps, filter, user),
    ...(user === null ? {} : { userId: user.id }),
    page: 1,
    perPage: 1,
  });
  return { query: request.query, filter };
}

/** Run a search on the engine; its latency goes to `search_duration_seconds` when there are metrics. */
export async function runSearch(deps: SearchDeps, index: IndexName, request: SearchRequest) {
  const started = process.hrtime.bigint();
  const result = await deps.engine.search(index, request);
  deps.metrics?.searchDuration.observe({ engine: deps.engine.kind, index }, Number(process.hrtime.bigint() - started) / 1e9);
  return result;
}
