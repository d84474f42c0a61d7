/**
 * The search workbench's endpoints (besides `/search/explain?image_id=`, in search.ts):
 *
 *   GET /filters/explain?image_id=N&<inline filter>   why an inline filter hides or spoilers an image
 *   GET /filters/:filter_id/explain?image_id=N        the same for a saved filter the caller may view
 *   GET /filters/test?<inline filter or filter_id>    the test bench over a sample of images
 *   GET /filters/images?q=…&<inline filter>           the page of images `q` finds under that filter
 *   GET /autocomplete/tags?term=…                     tag and field suggestions
 *
 * An inline filter is given by `hidden_tags`/`spoilered_tags` (names), `hidden_tag_ids`/
 * `spoilered_tag_ids` and `hidden_complex`/`spoilered_complex`. The test bench without any of
 * them runs `filter_id`'s filter, else the current filter. `/filters/explain` and `/filters/test`
 * (and `/filters/images`) are answered through routes/filters.ts's one route of `/filters/<name or id>`.
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import { canViewFilter } from '../../contexts/filters/access.js';
import { findFilter } from '../../contexts/filters/load.js';
import { loadImageDocuments } from '../../search/indexes/images/document.js';
import { buildImageSearch, parseImageSort } from '../../search/requests/index.js';
import type { AppContext, AppEnv } from '../env/context.js';
import { notFound } from '../answers/errors.js';
import { cacheFor } from '../middleware/cache.js';
import type { FilterExplainResponse, FilterTestResponse } from '../../api/schemas/workbench.js';
import { workbenchQuery } from '../../api/schemas/workbench.js';
import { parseQuery, validPath, validQuery } from '../request/validate.js';
import { compileComplexFilter } from '../filter-query.js';
import { toPaging } from '../../api/paging.js';
import { renderImages } from '../render/images.js';
import { runFilterBench } from '../workbench/filter-bench.js';
import { explainFilter } from '../workbench/filter-explain.js';
import { explainableImageDocument } from '../workbench/image-document.js';
import { compileFilter, givesInlineFilter, inlineSpec, specOfRow, type FilterSpec } from '../workbench/filter-rules.js';
import { autocompleteRoute } from './autocomplete.js';
import { compileFor, runSearch } from './search.js';

/** The bench's time budget for evaluating documents. */
const BENCH_BUDGET_MS = 2000;

/** A saved filter the caller may view, or null. */
async function savedSpec(c: AppContext, id: number): Promise<FilterSpec | null> {
  const row = await findFilter(c.get('deps').db, id);
  return row && canViewFilter(c.get('user'), row) ? specOfRow(row) : null;
}

async function explainResponse(c: AppContext, spec: FilterSpec, imageId: number): Promise<Response> {
  const now = Date.now();
  const filter = compileFilter(spec, c.get('user'), now);
  const doc = await explainableImageDocument(c.get('deps').db, imageId, c.get('user'));
  if (doc === undefined) return notFound(c);
  cacheFor(c, 1, { dependsOnUser: true });
  return c.json({ filter: { id: spec.id }, image_id: imageId, ...explainFilter(filter, doc) } satisfies z.output<typeof FilterExplainResponse>);
}

/** The sample's image ids, newest first: the first `size` that `q` finds, or the newest `size`. */
async function sampleIds(c: AppContext, q: string | undefined, size: number): Promise<number[]> {
  const query = q === undefined || q.trim() === '' ? { match_all: {} } : await compileFor(c, 'images', q);
  const request = buildImageSearch({ query, sort: parseImageSort(undefined, undefined), filters: [], page: 1, perPage: size });
  return (await runSearch(c.get('deps'), 'images', request)).ids;
}

type TestParams = z.output<typeof workbenchQuery.filterTest>;
type ImagesParams = z.output<typeof workbenchQuery.filterImages>;

/** The filter given inline, else by `filter_id` (null when the caller may not view it), else the current one. */
async function specOfParams(c: AppContext, params: TestParams | ImagesParams): Promise<FilterSpec | null> {
  if (givesInlineFilter(params)) return inlineSpec(c.get('deps').db, params);
  if (params.filter_id !== undefined) return savedSpec(c, params.filter_id);
  const current = await c.get('currentFilter')();
  return current && specOfRow(current);
}

async function filterTest(c: AppContext, params: TestParams): Promise<Response> {
  const spec = await specOfParams(c, params);
  if (spec === null) return notFound(c);
  const filter = compileFilter(spec, c.get('user'), Date.now());
  const q = params.q?.trim() ? params.q : undefined;
  const ids = await sampleIds(c, q, params.sample);
  const { evaluated, complete, ...result } = await runFilterBench(c.get('deps').db, filter, ids, BENCH_BUDGET_MS);
  cacheFor(c, 1, { dependsOnUser: true });
  return c.json({
    filter: { id: spec.id },
    sample: { q: q ?? null, size: ids.length, evaluated, complete },
    ...result,
  } satisfies z.output<typeof FilterTestResponse>);
}

/**
 * `GET /filters/images`: what `/search/images` would answer if the filter under edit were the
 * caller's current one: its hidden images left out, `spoilered` set by it.
 */
async function filterImages(c: AppContext, params: ImagesParams): Promise<Response> {
  const spec = await specOfParams(c, params);
  if (spec === null) return notFound(c);
  const deps = c.get('deps');
  const user = c.get('user');
  const now = Date.now();
  const filter = compileFilter(spec, user, now);
  const query = params.q?.trim() ? await compileFor(c, 'images', params.q) : { match_all: {} };
  const page = toPaging(params);
  const hidden = { tagIds: spec.tagIds.hidden, complex: compileComplexFilter(spec.complex.hidden, user, now) ?? { match_none: {} } };
  const request = buildImageSearch({
    query,
    sort: parseImageSort(params.sf, params.sd),
    filters: [hidden],
    ...(user === null ? {} : { userId: user.id }),
    page: page.page,
    perPage: page.perPage,
  });
  const { ids, total } = await runSearch(deps, 'images', request);
  const [images, docs] = await Promise.all([renderImages(deps, ids, { filter: null, user }), loadImageDocuments(deps.db, ids)]);
  const spoilered = new Set(docs.filter((doc) => explainFilter(filter, doc).spoilered).map((doc) => doc.id));
  cacheFor(c, 1, { dependsOnUser: true });
  // a stub (an image merged or deleted since the index heard of it) has no spoilered flag to set
  return c.json({ images: images.map((image) => (image.hidden_from_users ? image : { ...image, spoilered: spoilered.has(image.id) })), interactions: [], total });
}

/** `GET /filters/images`: the images under a filter (dispatched from routes/filters.ts). */
export const imagesUnderFilter = (c: AppContext): Promise<Response> => filterImages(c, parseQuery(c, workbenchQuery.filterImages));

/** `GET /filters/explain`: an inline filter on one image (dispatched from routes/filters.ts). */
export async function explainInlineFilter(c: AppContext): Promise<Response> {
  const params = parseQuery(c, workbenchQuery.filterExplain);
  return explainResponse(c, await inlineSpec(c.get('deps').db, params), params.image_id);
}

/** `GET /filters/test`: the test bench (dispatched from routes/filters.ts). */
export const testFilter = (c: AppContext): Promise<Response> => filterTest(c, parseQuery(c, workbenchQuery.filterTest));

export function workbenchRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/filters/:filter_id/explain', validPath('filter_id'), validQuery(workbenchQuery.filterExplainById), async (c) => {
    const spec = await savedSpec(c, c.req.valid('param').filter_id);
    if (spec === null) return notFound(c);
    return explainResponse(c, spec, c.req.valid('query').image_id);
  });
  app.route('/', autocompleteRoute());
  return app;
}
