/**
 * The caller of a request as the search context takes it (contexts/search/caller.ts): the key's
 * user and the current filter's lookup, no Hono context.
 */
import type { SearchCaller } from '../contexts/search/caller.js';
import type { AppContext } from './context.js';

export const searchCallerOf = (c: AppContext): SearchCaller => ({ user: c.get('user'), currentFilter: c.get('currentFilter') });
