import type { Query } from '../../../grammar/index.js';
import type { SearchRequest } from '../engine.js';
import { pageWindow, type Page } from './paging.js';

/** The request body of `/search/posts`: visible posts of normal-access forums (reference §3.2). */
export function buildPostSearch(o: Page & { query: Query }): SearchRequest {
  return {
    query: { bool: { must: [o.query, { term: { hidden_from_users: false } }, { term: { access_level: 'normal' } }] } },
    sort: [{ created_at: 'desc' }, { id: 'desc' }],
    ...pageWindow(o),
  };
}
