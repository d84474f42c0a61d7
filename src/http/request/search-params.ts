/**
 * The query parameters of the search routes, read by the schemas that document them
 * (src/api/schemas/params.ts) as `validQuery` reads them, and kept by the query string: search pages are
 * asked again and again with the same parameters (a tag's first page, a client paging), and
 * reading them is a fair part of a cached page's cost (the URL parsed, each value decoded, zod).
 * Kept values are frozen; a refused query string is read again each time it comes.
 */
import type { Context } from 'hono';
import type { z } from 'zod';
import { ApiError } from '../answers/errors.js';
import { ByQueryString, queryStringOf } from './request-query.js';
import { queryValues } from './validate.js';

export class SearchParams<T extends z.ZodType> {
  private readonly byQuery = new ByQueryString<Readonly<z.output<T>>>();

  constructor(private readonly schema: T) {}

  /** The request's parameters; a value the schema refuses is 400 with its message. */
  read(c: Context): Readonly<z.output<T>> {
    const url = c.req.url;
    return this.byQuery.get(queryStringOf(url), () => {
      const parsed = this.schema.safeParse(queryValues(url));
      if (!parsed.success) throw new ApiError(400, parsed.error.issues[0]!.message);
      return Object.freeze(parsed.data);
    });
  }
}
