import type { Query } from '../../../grammar/index.js';
import type { SearchRequest } from '../engine.js';
import { randomScore, type ImageSort } from './image-sort.js';
import { pageWindow, type Page } from './paging.js';

/** What a filter hides: tag ids and its compiled complex expression (match_none when empty). */
export interface HiddenByFilter {
  tagIds: readonly number[];
  complex: Query;
}

export interface ImageSearchOptions extends Page {
  /** The compiled user query. */
  query: Query;
  sort: ImageSort;
  /** The current filter and, when the user has one, the forced filter. */
  filters: HiddenByFilter[];
  /** Logged-in user: their own hidden images are excluded unless `showOwnHidden`. */
  userId?: number;
  showOwnHidden?: boolean;
  /** `del` parameter, honoured for staff only: `1` includes hidden images, `only`/`deleted` restrict to them. */
  deleted?: 'include' | 'only' | 'deleted';
}

const isMatchNone = (q: Query) => 'match_none' in q;

/** Who is asking and how: what decides which images a search may show. */
export type ImageVisibility = Pick<ImageSearchOptions, 'filters' | 'userId' | 'showOwnHidden' | 'deleted'>;

/**
 * What a search may not show (reference §6.1): unapproved images, hidden ones (unless `deleted`
 * says otherwise), the caller's own hidden images, and what the filters hide; as the `must_not`
 * list of a bool query.
 */
export function invisibleImages(o: ImageVisibility): Query[] {
  const mustNot: Query[] = [{ term: { approved: false } }];
  if (o.userId !== undefined && !o.showOwnHidden) mustNot.push({ term: { hidden_by_user_ids: o.userId } });
  if (o.deleted === undefined) mustNot.push({ term: { hidden_from_users: true } });
  else if (o.deleted === 'only' || o.deleted === 'deleted') mustNot.push({ term: { hidden_from_users: false } });
  if (o.deleted === 'deleted') mustNot.push({ exists: { field: 'duplicate_id' } });

  const tagIds = [...new Set(o.filters.flatMap((f) => f.tagIds))];
  const complex = o.filters.map((f) => f.complex).filter((q) => !isMatchNone(q));
  const hiddenByFilter: Query[] = [];
  if (tagIds.length > 0) hiddenByFilter.push({ terms: { tag_ids: tagIds } });
  if (complex.length > 0) hiddenByFilter.push({ bool: { should: complex } });
  if (hiddenByFilter.length > 0) mustNot.push({ bool: { should: hiddenByFilter } });
  return mustNot;
}

/** The images a caller may see, as a query (for searches that are not `/search/images`). */
export function visibleImages(o: ImageVisibility): Query {
  return { bool: { must_not: invisibleImages(o) } };
}

/** The request body of `/search/images` (reference §3.2 and §6.1). */
export function buildImageSearch(o: ImageSearchOptions): SearchRequest {
  const must = o.sort.randomSeed === undefined ? o.query : randomScore(o.query, o.sort.randomSeed);
  const request: SearchRequest = { query: { bool: { must, must_not: invisibleImages(o) } }, sort: o.sort.sort, ...pageWindow(o) };
  if (o.sort.seedDrawn) request.oneOff = true;
  return request;
}
