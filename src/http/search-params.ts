/**
 * The query parameters of the search routes, read by the schemas that document them
 * (schemas/params.ts) as `validQuery` reads them, and kept by the query string: search pages are
 * asked again and again with the same parameters (a tag's first page, a client paging), and
 * reading them is a fair part of a cached page's cost (the URL parsed, each value decoded, zod).
 * Kept values are frozen; a refused query string is read again each time it comes. The values of
 * every schema share one table by query string (one a process: a table per schema, made per app,
 * could not be registered once).
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from './errors.js';
import { ByQueryString, queryStringOf } from './request-query.js';
import { queryValues } from './validate.js';

/** Each query string's values, by the schema that read them. */
const valuesByQuery = new ByQueryString<Map<z.ZodType, unknown>>('search_params');

export class SearchParams<T extends z.ZodType> {
  constructor(private readonly schema: T) {}

  /** The request's parameters; a value the schema refuses is 400 with its message. */
  read(c: Context): Readonly<z.output<T>> {
    const url = c.req.url;
    const bySchema = valuesByQuery.get(queryStringOf(url), () => new Map());
    const kept = bySchema.get(this.schema) as Readonly<z.output<T>> | undefined;
    if (kept !== undefined) return kept;
    const parsed = this.schema.safeParse(queryValues(url));
    if (!parsed.success) throw new ApiError(400, parsed.error.issues[0]!.message);
    const values = Object.freeze(parsed.data);
    bySchema.set(this.schema, values);
    return values;
  }
}
