/**
 * The image searches of the filter workbench, planned like `/search/images` (plan.ts) but under a
 * filter other than the caller's current one: the test bench's sample, which no filter hides,
 * and `/filters/images`, the page `q` finds under the filter being written.
 */
import type { Query } from '../../../grammar/index.js';
import type { SearchRequest } from '../../search/engine.js';
import { buildImageSearch, parseImageSort } from '../../search/requests/index.js';
import type { SearchCaller, SearchDeps } from './caller.js';
import { compileFor } from './compile.js';
import type { FilterSpec } from './filter-clauses.js';
import { compileComplexFilter } from './filter.js';
import type { ImageSearchInput } from './plan.js';

/** `q` compiled for the caller; an empty or missing `q` matches every image. */
async function queryOrAll(deps: Pick<SearchDeps, 'db'>, caller: SearchCaller, q: string | undefined): Promise<Query> {
  return q === undefined || q.trim() === '' ? { match_all: {} } : (await compileFor(deps, caller, 'images', q)).query;
}

/** The test bench's sample: the first `size` images `q` finds, or the newest `size`, newest first. */
export async function planFilterSample(deps: Pick<SearchDeps, 'db'>, caller: SearchCaller, q: string | undefined, size: number): Promise<SearchRequest> {
  const query = await queryOrAll(deps, caller, q);
  return buildImageSearch({ query, sort: parseImageSort(undefined, undefined), filters: [], page: 1, perPage: size });
}

/**
 * `/search/images` as if `spec` were the caller's current filter: what its hidden tags and
 * expression hide left out (an expression that does not compile hides nothing, as for a saved
 * filter). `now` is the moment the spec's other compilations resolved relative dates against.
 */
export async function planImagesUnderFilter(
  deps: Pick<SearchDeps, 'db'>,
  caller: SearchCaller,
  spec: FilterSpec,
  input: Omit<ImageSearchInput, 'del' | 'hidden'>,
  now: number,
): Promise<SearchRequest> {
  const { user } = caller;
  const query = await queryOrAll(deps, caller, input.q);
  const hidden = { tagIds: spec.tagIds.hidden, complex: compileComplexFilter(spec.complex.hidden, user, now) ?? { match_none: {} } };
  return buildImageSearch({
    query,
    sort: parseImageSort(input.sf, input.sd),
    filters: [hidden],
    ...(user === null ? {} : { userId: user.id }),
    page: input.page,
    perPage: input.perPage,
  });
}
