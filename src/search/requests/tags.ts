import type { Query } from '../../../grammar/index.js';
import type { SearchRequest } from '../engine.js';
import { pageWindow, type Page } from './paging.js';

/** The request body of `/search/tags`: most used first, then by name (unique, so a stable order). */
export function buildTagSearch(o: Page & { query: Query }): SearchRequest {
  return { query: o.query, sort: [{ images: 'desc' }, { name: 'asc' }], ...pageWindow(o) };
}
