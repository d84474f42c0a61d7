/**
 * The search endpoints (reference §6, §3.2): `GET /search/images` (and its alias `/search`),
 * `/search/comments`, `/search/posts`, `/search/galleries`, `/search/tags`, `/search/filters`,
 * and `GET /search/explain?index=…&q=…`, which shows the DSL a query compiles to and, with
 * `image_id`, which of its clauses that image matches (workbench/query-explain.ts).
 *
 * Every search is planned by the search context for the caller (contexts/search/plan.ts: `q`
 * compiled, the current filter compiled once, visibility, sort, page), run on the engine, and the
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

 */
import { Hono } from 'hono';
import type { z } from 'zod';
import { explainFor } from '../../contexts/search/compile.js';
import { planImageSearch, planSearch, runSearch, type SimpleIndex } from '../../contexts/search/plan.js';
import type { AppContext, AppDeps, AppEnv } from '../context.js';
import { ApiError, notFound } from '../errors.js';
import { SearchParams } from '../search-params.js';
import { searchCallerOf } from '../search-caller.js';
import { explainOnImage } from '../workbench/query-explain.js';
import { unknownNames } from '../workbench/did-you-mean.js';
import { loadFilters } from '../../contexts/filters/load.js';
import { renderCommentJson } from '../render/comments.js';
import { renderGalleries } from '../render/galleries.js';
import { renderInteractions, renderImageListJson } from '../render/images.js';
import { renderPosts } from '../render/posts.js';
import { liveCaches } from '../../caches/read-caches.js';
import { answerKeepableThrough } from '../../caches/image-answer-cache.js';
import { renderTagJson } from '../render/tags.js';
import { cacheFor, jsonText, sourceEtag, taggedJson } from '../middleware/cache.js';
import { DEFAULT_PER_PAGE, toPaging } from '../middleware/paging.js';
import type { ExplainResponse } from '../schemas/envelopes.js';
import { routeQuery } from '../schemas/params.js';
import { workbenchQuery } from '../schemas/workbench.js';
import { validQuery } from '../validate.js';
import { filterView } from '../views/filter.js';

/**
 * Search answers may be kept for a second: a change reaches the index within about that long,
 * and each answer carries an ETag, so a client that revalidates pays only for a 304.
 */
const SEARCH_MAX_AGE = 1;

const IMAGES_OPEN = Buffer.from('{"images":[');

type ImageSearchParams = Readonly<z.output<typeof routeQuery.searchImages>>;

async function searchImages(c: AppContext, params: ImageSearchParams): Promise<Response> {
  const deps = c.get('deps');
  const user = c.get('user');
  const page = toPaging(params, user?.imagesPerPage ?? DEFAULT_PER_PAGE);
  const { filter, request, reused } = await planImageSearch(deps, searchCallerOf(c), {
    q: params.q ?? '',
    sf: params.sf,
    sd: params.sd,
    del: params.del,
    hidden: params.hidden,
    page: page.page,
    perPage: page.perPage,
  });
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
    const { request } = await planSearch(deps, searchCallerOf(c), index, params.q ?? '', page);
    const { ids, total } = await runSearch(deps, index, request);
    const list = await render(deps, index, ids);
    cacheFor(c, SEARCH_MAX_AGE, { dependsOnUser: true });
    // what `JSON.stringify({ [index]: list, total, interactions: [] })` gives, from texts already made
    return jsonText(c, `{"${index}":[${list.join(',')}],"total":${total},"interactions":[]}`);
  };
}

type ExplainParams = z.output<typeof workbenchQuery.searchExplain>;

async function explain(c: AppContext, { index, q, image_id }: ExplainParams): Promise<Response> {
  const text = q ?? '';
  const { query, clauses } = await explainFor(c.get('deps'), searchCallerOf(c), index, text, image_id !== undefined && index === 'images');
  const role = c.get('user')?.role ?? 'anonymous';
  const did_you_mean = index === 'images' ? await unknownNames(c.get('deps').db, text, role) : undefined;
  if (image_id === undefined) {
    cacheFor(c, 10, { dependsOnUser: true });
    return c.json({ index, query, did_you_mean } satisfies z.output<typeof ExplainResponse>);
  }
  if (index !== 'images') throw new ApiError(400, 'image_id applies to index=images only');
  const image = await explainOnImage(c.get('deps').db, image_id, c.get('user'), clauses ?? null);
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
