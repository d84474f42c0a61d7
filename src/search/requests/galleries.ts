import type { Query } from '../../../grammar/index.js';
import type { SearchRequest } from '../engine.js';
import { pageWindow, type Page } from './paging.js';

/** The request body of `/search/galleries`: no visibility rule, newest first. */
export function buildGallerySearch(o: Page & { query: Query }): SearchRequest {
  return { query: o.query, sort: [{ created_at: 'desc' }, { id: 'desc' }], ...pageWindow(o) };
}
