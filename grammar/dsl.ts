import type { API, Types } from '@opensearch-project/opensearch';

/** One OpenSearch query clause, typed by the official client so typos fail to compile. */
export type Query = Types.Common_QueryDsl.QueryContainer;

/** A whole search request body (query, sort, from, size, ...). */
export type SearchBody = API.Search_RequestBody;

/** One element of a `sort` list. */
export type SortClause = Types.Common.SortCombinations;
