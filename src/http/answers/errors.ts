/**
 * Every error answer is a JSON body `{"error": "<message>"}` (a query error adds where it is). Routes either return one of these
 * or throw an `ApiError`; anything else thrown becomes a logged 500.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export const NOT_FOUND = 'Not found';
export const FORBIDDEN = 'Forbidden';
export const INTERNAL_ERROR = 'Internal Error';

/**
 * A client-facing error with its status and message, and optional fields that follow `error` in
 * the body (a query error's position); clients that read only `error` see the reference's body.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
  }
}

export function errorResponse(c: Context, status: ContentfulStatusCode, message: string, details?: Readonly<Record<string, unknown>>): Response {
  return c.json({ error: message, ...details }, status);
}

export const notFound = (c: Context): Response => errorResponse(c, 404, NOT_FOUND);
export const forbidden = (c: Context): Response => errorResponse(c, 403, FORBIDDEN);
