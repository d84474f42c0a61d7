/**
 * Whether an error means the database cannot be reached or cannot serve right now (down,
 * restarting, refusing connections, frozen (`stall-guard.ts`), a query cut off by the statement
 * timeout), as opposed to a fault of the query or the data. Such errors are answered 503 with
 * Retry-After, not 500.
 */

import { UNRESPONSIVE_CODE } from './stall-guard.js';

/** postgres.js's own codes for a connection that could not be made or was lost, and the stall guard's. */
const CLIENT_CODES = new Set([UNRESPONSIVE_CODE, 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH']);

/** SQLSTATEs: admin or crash shutdown, cannot connect now (starting, recovering), too many connections, statement timeout. */
const SERVER_CODES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    if (CLIENT_CODES.has(code) || SERVER_CODES.has(code) || code.startsWith('08')) return true;
  }
  return false;
}
