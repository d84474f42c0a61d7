/**
 * One query parameter by name, as `c.req.query(name)` reads it (the first value, decoded), from
 * the query string's parameters read once and kept by the query string. Why: the request frame
 * asks for `key`, `filter_id` and the paging of every API request, and Hono reads a name the query
 * string lacks (`key`, for most callers) by decoding the whole query string each time; the same
 * query strings come again and again (a tag's first page, a client paging, an image read).
 */
import type { Context } from 'hono';

const MAX_ENTRIES = 4_096;
/** Longer query strings are read each time: rare, and they would hold the most memory. */
const MAX_KEPT_LENGTH = 2_048;

const byQueryString = new Map<string, ReadonlyMap<string, string>>();
const NONE: ReadonlyMap<string, string> = new Map();
/** The last URL read and its parameters: a request asks for several names, by the same URL string. */
let lastUrl = '';
let lastParams = NONE;

export function queryParam(c: Context, name: string): string | undefined {
  return queryParams(c).get(name);
}

/** The request's query parameters by name, the first value of each. */
function queryParams(c: Context): ReadonlyMap<string, string> {
  const url = c.req.url;
  if (url === lastUrl) return lastParams;
  const mark = url.indexOf('?');
  let params = NONE;
  if (mark >= 0) {
    const queryString = url.slice(mark + 1);
    const kept = byQueryString.get(queryString);
    if (kept !== undefined) params = kept;
    else {
      params = new Map(Object.entries(c.req.query()));
      if (queryString.length <= MAX_KEPT_LENGTH) {
        if (byQueryString.size >= MAX_ENTRIES) byQueryString.clear();
        byQueryString.set(queryString, params);
      }
    }
  }
  lastUrl = url;
  lastParams = params;
  return params;
}
