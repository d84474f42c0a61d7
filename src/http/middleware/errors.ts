/**
 * Error handling: unknown routes are 404 `{"error":"Not found"}`; an `ApiError` is its own status
 * and message; a search that cannot be made (contexts/search) is 400 with where its query fails; a full decode queue is 503 with `Retry-After`; Hono's `HTTPException` (malformed
 * requests it rejects itself) keeps its 4xx status;
 * a client that hung up before its answer (its body cut off, or anything else failing meanwhile) is
 * logged as 499 "Client closed request", not as an error of ours;
 * the database being unreachable (down, restarting, a statement timeout) is 503 with Retry-After,
 * and so is the search engine being so (every OpenSearch node down, say);
 * the media storage refusing a write for want of space is 507 Insufficient Storage with
 * Retry-After (counted in `/metrics`; nothing of the request was kept, see contexts/images/submit.ts);
 * object storage that cannot be reached is 503 with Retry-After, as the database;
 * anything else is logged and answered 500 `{"error":"Internal Error"}`, without details.
 */
import type { IncomingMessage } from 'node:http';
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { SearchRequestError } from '../../contexts/search/errors.js';
import { DecodeQueueFull } from '../../media/sandbox/pool.js';
import { StorageFullError, StorageUnavailableError } from '../../media/storage.js';
import type { AppEnv, AppLogger } from '../context.js';
import { searchApiError } from '../query-error.js';
import { isDatabaseUnavailable } from '../../db/unavailable.js';
import { isSearchUnavailable, SEARCH_RETRY_AFTER_SECONDS } from '../../search/unavailable.js';
import { ApiError, errorResponse, INTERNAL_ERROR, notFound } from '../errors.js';

/** Seconds a client is asked to wait when the media storage is full (an operator has to act). */
export const STORAGE_FULL_RETRY_AFTER_SECONDS = 300;

/** Seconds a client is asked to wait when the database is unavailable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The status logged for a request whose client hung up before its answer (nginx's 499). */
export const CLIENT_CLOSED_REQUEST = 499;

/** Whether the client closed its connection before the answer: the request is aborted, or its socket gone. */
function clientGone(c: Context<AppEnv>): boolean {
  if (c.req.raw.signal?.aborted) return true;
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  return incoming?.socket?.destroyed === true;
}

const consoleLogger: AppLogger = {
  error: (obj, msg) => console.error(msg ?? 'error', obj),
};

export const notFoundHandler: NotFoundHandler<AppEnv> = (c) => notFound(c);

export function errorHandler(fallbackLogger: AppLogger = consoleLogger): ErrorHandler<AppEnv> {
  return (err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err.status, err.message, err.details);
    if (err instanceof SearchRequestError) {
      const api = searchApiError(err);
      return errorResponse(c, api.status, api.message, api.details);
    }
    if (err instanceof DecodeQueueFull) {
      c.header('Retry-After', String(err.retryAfterSeconds));
      return errorResponse(c, 503, err.message);
    }
    if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
      const message = err.message || (err.status === 404 ? 'Not found' : 'Bad Request');
      return errorResponse(c, err.status as ContentfulStatusCode, message);
    }
    if (clientGone(c)) {
      // Its body stopped mid-way (ECONNRESET, which would otherwise read as a lost database
      // connection) or whatever else failed: no fault of ours, and no one reads the answer.
      c.error = undefined;
      return errorResponse(c, CLIENT_CLOSED_REQUEST as ContentfulStatusCode, 'Client closed request');
    }
    const logger = c.get('deps')?.logger ?? fallbackLogger;
    if (err instanceof StorageFullError) {
      c.get('deps')?.metrics?.storageFullRefusals.inc();
      logger.error({ err, method: c.req.method, path: c.req.path }, 'media storage full');
      c.header('Retry-After', String(STORAGE_FULL_RETRY_AFTER_SECONDS));
      return errorResponse(c, 507, 'Insufficient storage: the board cannot store files right now, retry later');
    }
    if (err instanceof StorageUnavailableError) {
      logger.error({ err, method: c.req.method, path: c.req.path }, 'media storage unavailable');
      c.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      return errorResponse(c, 503, 'Service temporarily unavailable, retry later');
    }
    if (isDatabaseUnavailable(err)) {
      logger.error({ err, method: c.req.method, path: c.req.path }, 'database unavailable');
      c.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      return errorResponse(c, 503, 'Service temporarily unavailable, retry later');
    }
    if (isSearchUnavailable(err)) {
      logger.error({ err, method: c.req.method, path: c.req.path }, 'search engine unavailable');
      c.header('Retry-After', String(SEARCH_RETRY_AFTER_SECONDS));
      return errorResponse(c, 503, 'Search temporarily unavailable, retry later');
    }
    logger.error({ err, method: c.req.method, path: c.req.path }, 'request failed');
    return errorResponse(c, 500, INTERNAL_ERROR);
  };
}
