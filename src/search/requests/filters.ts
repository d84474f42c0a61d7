import type { Query } from '../../../grammar/index.js';
import type { SearchRequest } from '../engine.js';
import { pageWindow, type Page } from './paging.js';

/** The request body of `/search/filters`: public and system filters, and the caller's own. */
export function buildFilterSearch(o: Page & { query: Query; userId?: number }): SearchRequest {
  const visible: Query[] = [{ term: { public: true } }, { term: { system: true } }];
  if (o.userId !== undefined) visible.push({ term: { user_id: o.userId } });
  return {
    query: { bool: { must: [o.query, { bool: { should: visible } }] } },
    sort: [{ name: 'asc' }, { id: 'desc' }],
    ...pageWindow(o),
  };
}
