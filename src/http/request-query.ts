/**
 * What the app reads from query strings, kept by the query string: the same query strings come
 * again and again (a tag's first page, a client paging, an image read).
 *
 * `queryParam` is one parameter by name, as `c.req.query(name)` reads it (the first value,
 * decoded). Why: the request frame asks for `key`, `filter_id` and the paging of every API
 * request, and Hono reads a name the query string lacks (`key`, for most callers) by decoding the
 * whole query string each time.
 */
import type { Context } from 'hono';
import { processCaches, type CacheCounts } from '../caches/registry.js';
import { BoundedMap } from '../lib/bounded-map.js';

const MAX_ENTRIES = 4_096;
/** Longer query strings are read each time: rare, and they would hold the most memory. */
const MAX_KEPT_LENGTH = 2_048;

/** The query string of a request URL, without its `?`; empty when it has none. */
export function queryStringOf(url: string): string {
  const mark = url.indexOf('?');
  return mark < 0 ? '' : url.slice(mark + 1);
}

/**
 * Values read from query strings, by query string: at most 4,096 kept, and none of a long one.
 * One a process for each `name` (module-level), registered with `processCaches`; what is read
 * from a query string is a function of it, so nothing invalidates an entry.
 */
export class ByQueryString<T> {
  private readonly table = new BoundedMap<string, T>({ maxEntries: MAX_ENTRIES });
  private readonly counts: CacheCounts;

  constructor(name: string) {
    this.counts = processCaches.register({ name, budget: { entries: MAX_ENTRIES }, invalidatedBy: [], held: () => ({ entries: this.table.size }) });
  }

  /** The value kept for `queryString`, else `read()`'s (kept; a throw is not). */
  get(queryString: string, read: () => T): T {
    const kept = this.table.get(queryString);
    if (kept !== undefined) {
      this.counts.hit();
      return kept;
    }
    this.counts.miss();
    const value = read();
    if (queryString.length <= MAX_KEPT_LENGTH) this.table.set(queryString, value);
    return value;
  }
}

const paramsByQueryString = new ByQueryString<ReadonlyMap<string, string>>('query_params');
/** The last URL read and its parameters: a request asks for several names, by the same URL string. */
let lastUrl = '';
let lastParams: ReadonlyMap<string, string> = new Map();

export function queryParam(c: Context, name: string): string | undefined {
  return queryParams(c).get(name);
}

/** The request's query parameters by name, the first value of each. */
function queryParams(c: Context): ReadonlyMap<string, string> {
  const url = c.req.url;
  if (url !== lastUrl) {
    lastParams = paramsByQueryString.get(queryStringOf(url), () => new Map(Object.entries(c.req.query())));
    lastUrl = url;
  }
  return lastParams;
}
