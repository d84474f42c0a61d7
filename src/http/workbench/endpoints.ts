/**
 * The search workbench's endpoints (besides `/search/explain?image_id=`, in routes/search.ts), as
 * handlers the routes mount (routes/workbench.ts, and routes/filters.ts's one route of
 * `/filters/<name or id>`):
 *
 *   GET /filters/explain?image_id=N&<inline filter>   why an inline filter hides or spoilers an image
 *   GET /filters/:filter_id/explain?image_id=N        the same for a saved filter the caller may view
 *   GET /filters/test?<inline filter or filter_id>    the test bench over a sample of images
 *   GET /filters/images?q=…&<inline filter>           the page of images `q` finds under that filter
 *
 * An inline filter is given by `hidden_tags`/`spoilered_tags` (names), `hidden_tag_ids`/
 * `spoilered_tag_ids` and `hidden_complex`/`spoilered_complex`. The test bench without any of
 * them runs `filter_id`'s filter, else the current filter. Queries and filters are compiled by the
 * search context (contexts/search), for the caller.
 */
import type { z } from 'zod';
import { canViewFilter } from '../../contexts/filters/access.js';
import { findFilter } from '../../contexts/filters/load.js';
import { loadImageDocuments } from '../../search/indexes/images/document.js';
import { compileFilter, specOfRow, type FilterSpec } from '../../contexts/search/filter-clauses.js';
import { runSearch } from '../../contexts/search/plan.js';
import { planFilterSample, planImagesUnderFilter } from '../../contexts/search/workbench-plans.js';
import type { AppContext } from '../context.js';
import { notFound } from '../errors.js';
import { cacheFor } from '../middleware/cache.js';
import type { FilterExplainResponse, FilterTestResponse } from '../schemas/workbench.js';
import { workbenchQuery } from '../schemas/workbench.js';
import { parseQuery } from '../validate.js';
import { toPaging } from '../middleware/paging.js';
import { renderImages } from '../render/images.js';
import { searchCallerOf } from '../search-caller.js';
import { runFilterBench } from './filter-bench.js';
import { explainFilter } from './filter-explain.js';
import { givesInlineFilter, inlineSpec } from './filter-rules.js';
import { explainableImageDocument } from './image-document.js';

/** The bench's time budget for evaluating documents. */
const BENCH_BUDGET_MS = 2000;

/** A saved filter the caller may view, or null. */
export async function savedSpec(c: AppContext, id: number): Promise<FilterSpec | null> {
  const row = await findFilter(c.get('deps').db, id);
  return row && canViewFilter(c.get('user'), row) ? specOfRow(row) : null;
}

export async function explainResponse(c: AppContext, spec: FilterSpec, imageId: number): Promise<Response> {
  const now = Date.now();
  const filter = compileFilter(spec, c.get('user'), now);
  const doc = await explainableImageDocument(c.get('deps').db, imageId, c.get('user'));
  if (doc === undefined) return notFound(c);
  cacheFor(c, 1, { dependsOnUser: true });
  return c.json({ filter: { id: spec.id }, image_id: imageId, ...explainFilter(filter, doc) } satisfies z.output<typeof FilterExplainResponse>);
}

/** The sample's image ids, newest first: the first `size` that `q` finds, or the newest `size`. */
async function sampleIds(c: AppContext, q: string | undefined, size: number): Promise<number[]> {
  const request = await planFilterSample(c.get('deps'), searchCallerOf(c), q, size);
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
  const page = toPaging(params);
  const input = { q: params.q ?? '', sf: params.sf, sd: params.sd, page: page.page, perPage: page.perPage };
  const request = await planImagesUnderFilter(deps, searchCallerOf(c), spec, input, now);
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
