/**
 * Every error answer is a JSON body `{"error": "<message>"}`. Routes either return one of these
 * or throw an `ApiError`; anything else thrown becomes a logged 500.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const NOT_FOUND = 'Not found';
export const FORBIDDEN = 'Forbidden';
export const INTERNAL_ERROR = 'Internal Error';

/** A client-facing error with its status and message. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
  ) {
    super(message);
  }
}

export function errorResponse(c: Context, status: ContentfulStatusCode, message: string): Response {
  return c.json({ error: message }, status);
}

export const notFound = (c: Context): Response => errorResponse(c, 404, NOT_FOUND);
export const forbidden = (c: Context): Response => errorResponse(c, 403, FORBIDDEN);
