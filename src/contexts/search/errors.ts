/** What the search context throws for a search the caller asked for that cannot be made. */
import type { QueryError } from '../../../grammar/index.js';

/** Where a query error lies in what the caller sent (see `src/http/query-error.ts`). */
export interface RefusedQuery {
  error: QueryError;
  /** The text the caller sent, which the error's position points into. */
  input: string;
  /** Further fields of the error body, e.g. which parameter held the text. */
  extra?: Record<string, unknown>;
  /** The error's offset in `input`, when what was compiled is not `input` itself. */
  offset?: number;
}

/** A search that cannot be made (a query that does not compile, a missing `q`): a 400 for HTTP. */
export class SearchRequestError extends Error {
  override name = 'SearchRequestError';

  constructor(
    message: string,
    readonly query?: RefusedQuery,
  ) {
    super(message);
  }
}

/** The error for `error`, raised while compiling `input`. */
export function queryRefused(error: QueryError, input: string, extra?: Record<string, unknown>, offset?: number): SearchRequestError {
  return new SearchRequestError(error.message, { error, input, ...(extra === undefined ? {} : { extra }), ...(offset === undefined ? {} : { offset }) });
}
