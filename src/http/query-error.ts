/**
 * A query that does not compile, as a 400: the reference's `{"error": message}` first, then where
 * the problem is (`position`: offset, line and column in the text the client sent) and the text
 * around it (`excerpt`), so a client can underline the spot without re-parsing.
 */
import { positionAt, type QueryError } from '../../grammar/index.js';
import type { SearchRequestError } from '../contexts/search/errors.js';
import { ApiError } from './errors.js';

/** Characters of context kept on each side of the error. */
const EXCERPT_RADIUS = 24;

/** Where an error at `offset` of `text` is, as the error body says it. */
export function queryErrorDetails(text: string, offset: number) {
  const position = positionAt(text, offset);
  const start = Math.max(0, position.offset - EXCERPT_RADIUS);
  const end = Math.min(text.length, position.offset + EXCERPT_RADIUS);
  return { position, excerpt: { text: text.slice(start, end), at: position.offset - start } };
}

/**
 * The 400 for `error`, raised while compiling `input`; `extra` fields follow (e.g. which
 * parameter). `offset` moves the error when what was compiled is not the text the client sent.
 */
export function queryApiError(error: QueryError, input: string, extra?: Record<string, unknown>, offset = error.position.offset): ApiError {
  return new ApiError(400, error.message, { ...queryErrorDetails(input, offset), ...extra });
}

/** The 400 of a search the search context refused, with where its query fails when it does. */
export function searchApiError(error: SearchRequestError): ApiError {
  const { query } = error;
  if (query === undefined) return new ApiError(400, error.message);
  return queryApiError(query.error, query.input, query.extra, query.offset);
}
