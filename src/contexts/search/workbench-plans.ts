/**
 * The image searches of the filter workbench, planned like `/search/images` (plan.ts) but under a
 * filter other than the caller's current one: the test bench's sample, which no filter hides,
 * and `/filters/images`, the page `q` finds under the filter being written.
 */
import type { SearchRequest } from '../../search/engine.js';
import { buildImageSearch, parseImageSort } from '../../search/requests/index.js';
import type { SearchCaller, SearchDeps } from './caller.js';
import { type CompiledQuery, compileFor, keptNoLongerThanItsClock } from './compile.js';
import { ClockReading } from './compiled-cache.js';
import type { FilterSpec } from './filter-clauses.js';
import { compileComplexFilter } from './filter.js';
import type { ImageSearchInput } from './plan.js';

const everyImage: CompiledQuery = { query: { match_all: {} }, clockFree: true };

/** `q` compiled for the caller; an empty or missing `q` matches every image. */
async function queryOrAll(deps: Pick<SearchDeps, 'db'>, caller: SearchCaller, q: string | undefined): Promise<CompiledQuery> {
  return q === undefined || q.trim() === '' ? everyImage : compileFor(deps, caller, 'images', q);
}

/** The test bench's sample: the first `size` images `q` finds, or the newest `size`, newest first. */
export async function planFilterSample(deps: Pick<SearchDeps, 'db'>, caller: SearchCaller, q: string | undefined, size: number): Promise<SearchRequest> {
  const { query, clockFree } = await queryOrAll(deps, caller, q);
  return keptNoLongerThanItsClock(buildImageSearch({ query, sort: parseImageSort(undefined, undefined), filters: [], page: 1, perPage: size }), clockFree);
}

/**
 * `/search/images` as if `spec` were the caller's current filter: what its hidden tags and
 * expression hide left out (an expression that does not compile hides nothing, as for a saved
 * filter). `now` is the moment the spec's other compilations resolved relative dates against.
 * A request that read the clock (in `q` or the expression) is marked, as `/search/images` marks
 * its own, for the engine to keep a second at most: a filter author's `3 days ago` is a new text
 * every second.
 */
export async function planImagesUnderFilter(
  deps: Pick<SearchDeps, 'db'>,
  caller: SearchCaller,
  spec: FilterSpec,
  input: Omit<ImageSearchInput, 'del' | 'hidden'>,
  now: number,
): Promise<SearchRequest> {
  const { user } = caller;
  const { query, clockFree } = await queryOrAll(deps, caller, input.q);
  const clock = new ClockReading(now);
  const hidden = { tagIds: spec.tagIds.hidden, complex: compileComplexFilter(spec.complex.hidden, user, clock) ?? { match_none: {} } };
  const request = buildImageSearch({
    query,
    sort: parseImageSort(input.sf, input.sd),
    filters: [hidden],
    ...(user === null ? {} : { userId: user.id }),
    page: input.page,
    perPage: input.perPage,
  });
  return keptNoLongerThanItsClock(request, clockFree && !clock.read);
}
