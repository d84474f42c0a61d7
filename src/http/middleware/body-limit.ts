/**
 * Request bodies a route refuses, or stops reading at its limit, are left unread.
 *
 * To keep a connection alive after an answer, Node and @hono/node-server read and drop whatever
 * is left of the request body (the adapter up to 64 MB or half a second, Node to the end), so a
 * client sending 130 MiB without a key would have it all read before the connection could be
 * reused. A refusal made before the body is read therefore says `Connection: close`: Node closes
 * the socket once the answer is written, and the rest is never read. A client that sent
 * `Expect: 100-continue` is not even asked for its body (src/http/server/server.ts sends the 100 only
 * when a route starts reading).
 *
 * `limitBody` is the one size limit of bodies that are read whole (hono's `bodyLimit`): over the
 * limit by their Content-Length, refused at once; without one, counted as they stream and refused
 * as soon as they pass it; either way 413 `{"error": "Request body too large"}`, closing.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorResponse } from '../answers/errors.js';

/** Whether a Content-Type names JSON (`application/json`, parameters allowed). */
export const isJson = (contentType: string | undefined) => /^application\/json\s*(;|$)/i.test(contentType ?? '');

/** Whether a request sends a body (one that a refusal would otherwise leave to be read and dropped). */
export function carriesBody(c: Context): boolean {
  return Number(c.req.header('content-length') ?? 0) > 0 || c.req.header('transfer-encoding') !== undefined;
}

/** Make the answer being built close the connection when the request sends a body left unread. */
export function leaveBodyUnread(c: Context): void {
  if (carriesBody(c)) c.header('Connection', 'close');
}

/** A JSON error given before the request's body is read; the body stays unread. */
export function refuseUnread(c: Context, status: ContentfulStatusCode, message: string): Response {
  leaveBodyUnread(c);
  return errorResponse(c, status, message);
}

/** Bodies over `maxSize` bytes are refused with 413 before (or as soon as) they pass it. */
export function limitBody(maxSize: number): MiddlewareHandler {
  return bodyLimit({ maxSize, onError: (c) => refuseUnread(c, 413, 'Request body too large') });
}
