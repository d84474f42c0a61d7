/**
 * The search endpoints (reference §6, §3.2): `GET /search/images` (and its alias `/search`),
 * `/search/comments`, `/search/posts`, `/search/galleries`, `/search/tags`, `/search/filters`,
 * and `GET /search/explain?index=…&q=…`, which shows the DSL a query compiles to and, with
 * `image_id`, which of its clauses that image matches (workbench/query-explain.ts).
 *
 * Every search: `q` is compiled by the grammar with the index's fields for the caller's role and
 * a context (user id; for images the watch list and the filters `filter_id:` may name), wrapped by
 * the index's request builder (visibility, current filter, sort, page), run on the engine, and the
 * hit ids are rendered by the batch loaders in hit order.
 *
 * Contract (reference §5.2, §5.3):
 * - `{"<plural>": [...], "total": N, "interactions": [...]}`; `interactions` lists the caller's
 *   faves, votes and hides of the listed images (always `[]` for anonymous callers and for
 *   the other indexes).
 * - `page` and `per_page` are read like `Integer.parse`; `per_page` is 1..50, default 25 (for
 *   images: the key user's `images_per_page`, whose default is 25 as well; the reference's 15 is
 *   its known issue #142). Deep pages are answered; past the end the list is empty and `total`
 *   is still the number of matches.
 * - A missing or empty `q` matches nothing (200, `total: 0`); `q=*` matches everything.
 * - A query that does not compile is 400 `{"error": "<message>", "position", "excerpt"}`, the
 *   message in the reference's wording, then where it is (see query-error.ts);
 *   `q` given more than once or as `q[]=`/`q[k]=` is 400 `search query is not a string` (the
 *   reference answers 500 on images there).
 * - Other parameters (`limit`, `distance`, empty ones) are ignored.
 *
 * Deliberate choices:
 * - A current filter whose hidden complex expression does not compile hides nothing through that
 *   expression (the reference turns it into `match_all`, hiding every image); it is logged once.
 * - `del` (include/only/only-deleted hidden images) is honoured for moderators and admins only;
 *   the reference lets anyone use `del=1`.
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import {
  type CompileOptions,
  type Query,
  clauseTree,
  compileQuery,
  filterIdsIn,
  isQueryError,
  type FilterRule,
  type QueryContext,
  type Role,
  type WatchList,
} from '../../../grammar/index.js';
import type { SearchRequest } from '../../search/engine.js';
import { queryFields, type SearchIndexName } from '../../search/explain.js';
import {
  buildCommentSearch,
  buildFilterSearch,
  buildGallerySearch,
  buildImageSearch,
  buildPostSearch,
  buildTagSearch,
  parseImageSort,
  type HiddenByFilter,
} from '../../search/requests/index.js';
import type { AppContext, AppDeps, AppEnv } from '../env/context.js';
import { ApiError, notFound } from '../answers/errors.js';
import { ClockReading, CompiledCache } from '../compiled-cache.js';
import { SearchParams } from '../request/search-params.js';
import { queryApiError } from '../answers/query-error.js';
import { explainOnImage } from '../workbench/query-explain.js';
import { compileComplexFilter } from '../filter-query.js';
import { unknownNames } from '../workbench/did-you-mean.js';
import { canViewFilter } from '../../contexts/filters/access.js';
import { loadFilters } from '../../contexts/filters/load.js';
import { isStaffModerator } from '../../contexts/users/roles.js';
import { renderCommentJson } from '../render/comments.js';
import { renderGalleries } from '../render/galleries.js';
import { renderInteractions, renderImageListJson } from '../render/images.js';
import { renderPosts } from '../render/posts.js';
import { liveCaches } from '../read-caches.js';
import { answerKeepableThrough } from '../render/image-answer-cache.js';
import { filterRowNumber } from '../render/filter-row-number.js';
import { renderTagJson } from '../render/tags.js';
import { cacheFor, jsonText, sourceEtag, taggedJson } from '../middleware/cache.js';
import { DEFAULT_PER_PAGE, toPaging, type Paging } from '../../api/paging.js';
import type { ExplainResponse } from '../../api/schemas/envelopes.js';
import { routeQuery } from '../../api/schemas/params.js';
import { workbenchQuery } from '../../api/schemas/workbench.js';
import { validQuery } from '../request/validate.js';
import { filterView } from '../../api/views/filter.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import type { UserRow } from '../../contexts/users/types.js';
import type { LiveQuery } from '../live/types.js';

/**
 * Search answers may be kept for a second: a change reaches the index within about that long,
 * and each answer carries an ETag, so a client that revalidates pays only for a 304.
 */
const SEARCH_MAX_AGE = 1;

const roleOf = (user: UserRow | null): Role => user?.role ?? 'anonymous';

/** Assistants, moderators and admins: they see hidden and unapproved comments. */
const isCommentStaff = (user: UserRow | null) => user !== null && user.role !== 'user';

// ---------------------------------------------------------------------------------------------
// Compiling `q`
// ---------------------------------------------------------------------------------------------

/** The filters `q` names as `filter_id:N` that the caller may use, as the compiler wants them. */
async function usableFilters(deps: AppDeps, user: UserRow | null, q: string): Promise<Map<number, FilterRule>> {
  const ids = filterIdsIn(q);
  const usable = new Map<number, FilterRule>();
  if (ids.length === 0) return usable;
  for (const row of (await loadFilters(deps.db, ids)).values()) {
    if (canViewFilter(user, row)) usable.set(row.id, { hiddenTagIds: row.hiddenTagIds, hiddenComplex: row.hiddenComplexStr });
  }
  return usable;
}

/** The key user's watch list for `my:watched`; spoilers of the current filter left out if asked. */
async function watchListOf(c: AppContext, user: UserRow): Promise<WatchList> {
  const list: WatchList = {
    tagIds: user.watchedTagIds,
    include: user.watchedImagesQueryStr,
    exclude: user.watchedImagesExcludeStr,
  };
  if (user.noSpoileredInWatched) {
    const filter = await c.get('currentFilter')();
    if (filter) list.spoilered = { tagIds: filter.spoileredTagIds, complex: filter.spoileredComplexStr };
  }
  return list;
}

/** What the compiler needs to know about the caller to compile `q` on `index`. */
async function queryContext(c: AppContext, index: SearchIndexName, q: string): Promise<QueryContext> {
  const user = c.get('user');
  const context: QueryContext = { userId: user?.id ?? null };
  if (index !== 'images') return context;
  const usable = await usableFilters(c.get('deps'), user, q);
  context.filters = (id) => usable.get(id);
  if (user !== null) context.watchList = await watchListOf(c, user);
  return context;
}

/** How `q` is compiled for the caller on `index`. */
async function compileOptionsFor(c: AppContext, index: SearchIndexName, q: string): Promise<CompileOptions> {
  return { fields: queryFields[index], role: roleOf(c.get('user')), context: await queryContext(c, index, q) };
}

/** `compile(q, options)`; a `QueryError` becomes 400 with its message and position. */
function compiling<T>(q: string, options: CompileOptions, compile: (q: string, options: CompileOptions) => T): T {
  try {
    return compile(q, options);
  } catch (err) {
    if (isQueryError(err)) throw queryApiError(err, q);
    throw err;
  }
}

/**
 * Queries compiled for anonymous callers, whose compilation depends on the text alone when it
 * names no `filter_id:` (see `compiled-cache.ts`); one that read no clock is kept for a minute.
 */
const anonymousQueries = new CompiledCache<AnonymousQuery>();

interface AnonymousQuery {
  query: Query;
  /** The same at any time: no date was resolved against the clock. */
  clockFree: boolean;
}

/** How long a compiled query (or a request built with it) that read no clock is kept. */
const CLOCK_FREE_MS = 60_000;

/** `q` compiled for an anonymous caller, when it names no `filter_id:` (else undefined). */
function compileAnonymous(index: SearchIndexName, q: string): AnonymousQuery | undefined {
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

const lifetimeOf = (compiled: { clockFree: boolean }) => (compiled.clockFree ? CLOCK_FREE_MS : undefined);

/** `q` compiled for the caller; a `QueryError` becomes 400 with its message and position. */
export async function compileFor(c: AppContext, index: SearchIndexName, q: string): Promise<Query> {
  const anonymous = c.get('user') === null ? compileAnonymous(index, q) : undefined;
  return anonymous?.query ?? compiling(q, await compileOptionsFor(c, index, q), compileQuery);
}

// ---------------------------------------------------------------------------------------------
// Running a search
// ---------------------------------------------------------------------------------------------

/** Run a search on the engine; its latency goes to `search_duration_seconds` when there are metrics. */
export async function runSearch(deps: AppDeps, index: SearchIndexName, request: SearchRequest) {
  const started = process.hrtime.bigint();
  const result = await deps.engine.search(index, request);
  deps.metrics?.searchDuration.observe({ engine: deps.engine.kind, index }, Number(process.hrtime.bigint() - started) / 1e9);
  return result;
}

/** Hidden complex expressions compiled, by filter, text and caller (see `compiled-cache.ts`). */
const complexFilters = new CompiledCache<Query | null>();

/** Filters whose broken hidden expression was already reported (by id and text). */
const reportedBrokenFilters = new Set<string>();

/**
 * What the current filter hides: its hidden tags and its hidden complex expression, compiled for
 * the caller with `filter: true`. An expression that does not compile is ignored and reported.
 */
export function hiddenBy(deps: AppDeps, filter: FilterRow | null, user: UserRow | null): HiddenByFilter[] {
  if (filter === null) return [];
  const source = filter.hiddenComplexStr;
  const complex = complexFilters.get(`${filter.id}\u0000${user?.role ?? ''}\u0000${user?.id ?? ''}\u0000${source}`, () => compileComplexFilter(source, user));
  if (complex === null && source.trim() !== '') {
    const key = `${filter.id}\u0000${source}`;
    if (!reportedBrokenFilters.has(key)) {
      if (reportedBrokenFilters.size >= 1000) reportedBrokenFilters.clear();
      reportedBrokenFilters.add(key);
      const log = deps.logger?.warn?.bind(deps.logger) ?? ((obj: unknown, msg?: string) => console.warn(msg, obj));
      log({ filterId: filter.id, hiddenComplex: source }, 'hidden complex filter does not compile; ignored');
    }
  }
  return [{ tagIds: filter.hiddenTagIds, complex: complex ?? { match_none: {} } }];
}

/** `del`, for moderators and admins: `1` includes hidden images, `only`/`deleted` restrict to them. */
function deletedParam(c: AppContext, del: '1' | 'only' | 'deleted' | undefined): 'include' | 'only' | 'deleted' | undefined {
  if (!isStaffModerator(c.get('user'))) return undefined;
  switch (del) {
    case '1':
      return 'include';
    case 'only':
      return 'only';
    case 'deleted':
      return 'deleted';
    default:
      return undefined;
  }
}

const IMAGES_OPEN = Buffer.from('{"images":[');

type ImageSearchParams = Readonly<z.output<typeof routeQuery.searchImages>>;

/**
 * Engine requests of anonymous searches, by index, the current filter's row (when the request
 * depends on it) and the parameters they depend on: a page asked again is neither compiled nor
 * built again, and its request is the same frozen object, whose JSON text the engine thread
 * keeps. A filter edited is a new row (render/filter-cache.ts), so it never meets the requests of
 * its old version. An entry lives as long as the compiled query in it (see `compiled-cache.ts`),
 * a second when the filter hides by a complex expression (which may hold relative dates).
 * Requests with a seed drawn for them (`oneOff`) are not kept.
 */
const anonymousRequests = new CompiledCache<KeptRequest>();

interface KeptRequest {
  /** Undefined when `q` names a filter (its compilation depends on the caller). */
  request: SearchRequest | undefined;
  /** 0: not kept (see `CompiledCache.get`); undefined: a second. */
  lifetimeMs: number | undefined;
}

/** Whether what `filter` hides reads no clock. */
const clockFreeFilter = (filter: FilterRow | null) => filter === null || filter.hiddenComplexStr.trim() === '';

/**
 * The request `build` makes of `q` compiled for an anonymous caller on `index`, kept under `key`
 * (what else it depends on); undefined when `q` names a filter (`filter_id:`).
 */
function anonymousRequest(index: SearchIndexName, key: string, q: string, build: (query: Query) => SearchRequest, filterClockFree = true): SearchRequest | undefined {
  return keptAnonymousRequest(index, key, q, build, filterClockFree).request;
}

/** `anonymousRequest`, and whether the request is kept (asked again, it is the same object). */
function keptAnonymousRequest(index: SearchIndexName, key: string, q: string, build: (query: Query) => SearchRequest, filterClockFree: boolean): KeptRequest {
  return anonymousRequests.get(
    `${index}\u0000${key}\u0000${q}`,
    (): KeptRequest => {
      const compiled = compileAnonymous(index, q);
      if (compiled === undefined) return { request: undefined, lifetimeMs: 0 };
      const request = build(compiled.query);
      if (request.oneOff) return { request, lifetimeMs: 0 };
      return { request: Object.freeze(request), lifetimeMs: compiled.clockFree && filterClockFree ? CLOCK_FREE_MS : undefined };
    },
    (entry) => entry.lifetimeMs,
  );
}

/**
 * The current filter, resolved before `q` is compiled (requests are kept by filter row); a filter
 * that cannot be used is answered after a query that does not compile, as when `q` came first.
 */
async function currentFilterAfter(c: AppContext, index: SearchIndexName, q: string): Promise<FilterRow | null> {
  try {
    return await c.get('currentFilter')();
  } catch (err) {
    await compileFor(c, index, q);
    throw err;
  }
}

/** The engine request of `/search/images` for the caller, of `query` compiled for them. */
function imageRequest(c: AppContext, params: ImageSearchParams, filter: FilterRow | null, page: Paging, query: Query): SearchRequest {
  const user = c.get('user');
  return buildImageSearch({
    query,
    sort: parseImageSort(params.sf, params.sd),
    filters: hiddenBy(c.get('deps'), filter, user),
    ...(user === null ? {} : { userId: user.id, showOwnHidden: params.hidden === '1' }),
    ...withDeleted(deletedParam(c, params.del)),
    page: page.page,
    perPage: page.perPage,
  });
}

/**
 * The engine request of `/search/images` for the caller, kept for anonymous callers: `reused` when
 * the same request object answers the same parameters again (its pages may be kept whole).
 */
async function imageSearchRequest(c: AppContext, params: ImageSearchParams, filter: FilterRow | null, page: Paging): Promise<{ request: SearchRequest; reused: boolean }> {
  const q = params.q ?? '';
  // (closures passed, not named: under tsx a named closure made per request costs a `__name`)
  if (c.get('user') === null) {
    // what the request of an anonymous caller depends on (`del` and `hidden` are not theirs)
    const key = `${filterRowNumber(filter)}\u0000${page.page}\u0000${page.perPage}\u0000${params.sf ?? ''}\u0000${params.sd ?? ''}`;
    const kept = keptAnonymousRequest('images', key, q, (query) => imageRequest(c, params, filter, page, query), clockFreeFilter(filter));
    if (kept.request !== undefined) return { request: kept.request, reused: kept.lifetimeMs !== 0 };
  }
  return { request: imageRequest(c, params, filter, page, await compileFor(c, 'images', q)), reused: false };
}

async function searchImages(c: AppContext, params: ImageSearchParams): Promise<Response> {
  const deps = c.get('deps');
  const user = c.get('user');
  const page = toPaging(params, user?.imagesPerPage ?? DEFAULT_PER_PAGE);
  const filter = await currentFilterAfter(c, 'images', params.q ?? '');
  const { request, reused } = await imageSearchRequest(c, params, filter, page);
  const { ids, total } = await runSearch(deps, 'images', request);
  cacheFor(c, SEARCH_MAX_AGE, { dependsOnUser: true });
  // anonymous callers' pages asked again are answered whole from memory while they stay the same
  const caches = reused && answerKeepableThrough(filter) ? liveCaches(deps.caches) : null;
  const kept = caches?.imageAnswers.find(request, caches.images, { ids, total });
  if (kept !== undefined) return taggedJson(c, kept.body, kept.etag);
  const before = caches?.images.mark();
  const [images, interactions] = await Promise.all([
    renderImageListJson(deps, ids, { filter, user }),
    renderInteractions(deps.db, user, ids),
  ]);
  const interactionsJson = JSON.stringify(interactions);
  // The same keys and order as the other lists; the images are JSON text already.
  const body = Buffer.concat([IMAGES_OPEN, ...images.parts, Buffer.from(`],"interactions":${interactionsJson},"total":${total}}`)]);
  const etag = sourceEtag(`images ${images.fingerprint} ${interactionsJson} ${total}`);
  if (caches !== null) caches.imageAnswers.keepMade(request, caches.images, before!, { ids, total, listed: images.ids, body, etag });
  return taggedJson(c, body, etag);
}

/**
 * What `/search/images?q=` would match for this caller, as one query for in-process matching
 * (live searches): the compiled `q` with visibility and the current filter. An empty `q` is 400:
 * a live search must ask for something.
 */
export async function liveImageQuery(c: AppContext, q: string | undefined): Promise<LiveQuery> {
  if (q === undefined || q.trim() === '') throw new ApiError(400, 'q is required');
  const user = c.get('user');
  const query = await compileFor(c, 'images', q);
  const filter = await c.get('currentFilter')();
  const request = buildImageSearch({
    query,
    sort: { sort: [] },
    filters: hiddenBy(c.get('deps'), filter, user),
    ...(user === null ? {} : { userId: user.id }),
    page: 1,
    perPage: 1,
  });
  return { query: request.query, filter };
}

const withDeleted = (deleted: 'include' | 'only' | 'deleted' | undefined) => (deleted === undefined ? {} : { deleted });

type SimpleIndex = Exclude<SearchIndexName, 'images'>;

/** The request of a search on an index other than images; `filter` is the current one (comments hide by it). */
function simpleRequest(c: AppContext, index: SimpleIndex, query: Query, page: Paging, filter: FilterRow | null): SearchRequest {
  const user = c.get('user');
  const window = { page: page.page, perPage: page.perPage };
  switch (index) {
    case 'comments':
      return buildCommentSearch({
        query,
        hiddenTagIds: filter?.hiddenTagIds ?? [],
        staff: isCommentStaff(user),
        ...(user === null ? {} : { userId: user.id }),
        ...window,
      });
    case 'posts':
      return buildPostSearch({ query, ...window });
    case 'galleries':
      return buildGallerySearch({ query, ...window });
    case 'tags':
      return buildTagSearch({ query, ...window });
    case 'filters':
      return buildFilterSearch({ query, ...(user === null ? {} : { userId: user.id }), ...window });
  }
}

/** Filters by id, in the order of `ids`; missing ids are dropped. */
async function renderFilters(deps: AppDeps, ids: readonly number[]) {
  const byId = await loadFilters(deps.db, ids);
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [filterView(row)] : [];
  });
}

/** Each hit's JSON text, in hit order: tags and comments through the app's caches of rendered records. */
async function render(deps: AppDeps, index: SimpleIndex, ids: number[]): Promise<string[]> {
  const texts = (list: unknown[]) => list.map((item) => JSON.stringify(item));
  switch (index) {
    case 'comments':
      return renderCommentJson(deps, ids);
    case 'posts':
      return texts(await renderPosts(deps, ids));
    case 'galleries':
      return texts(await renderGalleries(deps, ids));
    case 'tags':
      return renderTagJson(deps, ids);
    case 'filters':
      return texts(await renderFilters(deps, ids));
  }
}

function simpleSearch(index: SimpleIndex) {
  return async (c: AppContext, params: Readonly<z.output<typeof routeQuery.search>>): Promise<Response> => {
    const deps = c.get('deps');
    const page = toPaging(params);
    const q = params.q ?? '';
    const filter = index === 'comments' ? await currentFilterAfter(c, index, q) : null;
    const kept =
      c.get('user') === null
        ? anonymousRequest(index, `${filterRowNumber(filter)}\u0000${page.page}\u0000${page.perPage}`, q, (query) => simpleRequest(c, index, query, page, filter))
        : undefined;
    const request = kept ?? simpleRequest(c, index, await compileFor(c, index, q), page, filter);
    const { ids, total } = await runSearch(deps, index, request);
    const list = await render(deps, index, ids);
    cacheFor(c, SEARCH_MAX_AGE, { dependsOnUser: true });
    // what `JSON.stringify({ [index]: list, total, interactions: [] })` gives, from texts already made
    return jsonText(c, `{"${index}":[${list.join(',')}],"total":${total},"interactions":[]}`);
  };
}

// ---------------------------------------------------------------------------------------------
// Explain
// ---------------------------------------------------------------------------------------------

type ExplainParams = z.output<typeof workbenchQuery.searchExplain>;

async function explain(c: AppContext, { index, q, image_id }: ExplainParams): Promise<Response> {
  const text = q ?? '';
  const options = await compileOptionsFor(c, index, text);
  const query = compiling(text, options, compileQuery);
  const role = c.get('user')?.role ?? 'anonymous';
  const did_you_mean = index === 'images' ? await unknownNames(c.get('deps').autocomplete, text, role) : undefined;
  if (image_id === undefined) {
    cacheFor(c, 10, { dependsOnUser: true });
    return c.json({ index, query, did_you_mean } satisfies z.output<typeof ExplainResponse>);
  }
  if (index !== 'images') throw new ApiError(400, 'image_id applies to index=images only');
  const image = await explainOnImage(c.get('deps').db, image_id, c.get('user'), compiling(text, options, clauseTree));
  if (image === null) return notFound(c);
  cacheFor(c, SEARCH_MAX_AGE, { dependsOnUser: true });
  return c.json({ index, query, image, did_you_mean } satisfies z.output<typeof ExplainResponse>);
}

export function searchRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const images = new SearchParams(routeQuery.searchImages);
  app.get('/search/images', (c) => searchImages(c, images.read(c)));
  app.get('/search', (c) => searchImages(c, images.read(c)));
  const others = new SearchParams(routeQuery.search);
  for (const index of ['comments', 'posts', 'galleries', 'tags', 'filters'] as const) {
    const search = simpleSearch(index);
    app.get(`/search/${index}`, (c) => search(c, others.read(c)));
  }
  app.get('/search/explain', validQuery(workbenchQuery.searchExplain), (c) => explain(c, c.req.valid('query')));
  return app;
}
