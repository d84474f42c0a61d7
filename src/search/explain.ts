/**
 * Query fields of every searchable index, and `explainQuery`: the DSL a query compiles to on one
 * index for one role. The HTTP layer and the `query explain` CLI call it; search endpoints wrap
 * the same compiled query with their filters, sort and paging.
 */
import { compileQuery, type FieldSet, type Query, type QueryContext, type QueryLimits, type Role } from '../../grammar/index.js';
import { commentFields } from './indexes/comments/fields.js';
import { filterFields } from './indexes/filters/fields.js';
import { galleryFields } from './indexes/galleries/fields.js';
import { imageFields } from './indexes/images/fields.js';
import { postFields } from './indexes/posts/fields.js';
import { tagFields } from './indexes/tags/fields.js';

export const SEARCH_INDEXES = ['images', 'comments', 'posts', 'galleries', 'tags', 'filters'] as const;
export type SearchIndexName = (typeof SEARCH_INDEXES)[number];

export const queryFields: Readonly<Record<SearchIndexName, FieldSet>> = Object.freeze({
  images: imageFields,
  comments: commentFields,
  posts: postFields,
  galleries: galleryFields,
  tags: tagFields,
  filters: filterFields,
});

export function isSearchIndex(name: unknown): name is SearchIndexName {
  return typeof name === 'string' && (SEARCH_INDEXES as readonly string[]).includes(name);
}

export interface Explanation {
  index: SearchIndexName;
  query: Query;
}

/**
 * Compile `q` for `index` as `role` would search. Throws `QueryError` (reference wording) for a
 * bad query, including a non-string `q` (`null`/`undefined` mean an empty query).
 */
export function explainQuery(
  index: SearchIndexName,
  q: unknown,
  role: Role = 'anonymous',
  context: QueryContext = {},
  limits?: Partial<QueryLimits>,
): Explanation {
  return { index, query: compileQuery(q, { fields: queryFields[index], role, context, ...(limits ? { limits } : {}) }) };
}
