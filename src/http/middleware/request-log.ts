/**
 * Request ids and the request log. Every request gets an id — the caller's `X-Request-Id` when it
 * is a short safe token (so a proxy's id follows the request), else a new UUID — echoed in the
 * `X-Request-Id` response header. Handlers log through `c.get('log')` (`app/request-logger.ts`), whose
 * lines carry `reqId`. When the request ends, one JSON line: `reqId`, `method`, `route` (the pattern,
 * e.g. `/api/v1/json/images/:image_id`), `url` (path and query, with the value of `key` replaced
 * by `[redacted]`), `status` and `ms`; `err` too when the request failed. Probe and scrape routes
 * (`/healthz`, `/readyz`, `/metrics`) log at debug level unless they fail, so they do not drown
 * the log. Without a pino logger in the deps, ids are still given but no lines are written.
 * Cross-origin scripts may read `X-Request-Id` and `Retry-After` (`Access-Control-Expose-Headers`).
 */
import { randomUUID } from 'node:crypto';
import pino, { type Logger } from 'pino';
import type { AppContext, AppDeps } from '../env/context.js';
import { requestHeader } from '../request/request-header.js';
import { RequestLogger } from '../env/request-logger.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;
const QUIET_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

const silent: Logger = pino({ enabled: false });

const MAY_NAME_KEY = /key|%|\+/i;

/** Longer URLs (very long `q`) are cut in the log. */
const MAX_LOGGED_URL = 2048;

/**
 * Cross-origin callers may read the request id, and `Retry-After` on a 429 (usage term 2: back
 * off); neither is readable from a browser script unless exposed.
 */
export function exposedHeaders(allowsOrigin: boolean, hasRetryAfter: boolean): string | undefined {
  if (!allowsOrigin) return undefined;
  return hasRetryAfter ? `${REQUEST_ID_HEADER}, Retry-After` : REQUEST_ID_HEADER;
}

function exposeHeaders(headers: Headers): void {
  const exposed = exposedHeaders(headers.has('Access-Control-Allow-Origin'), headers.has('Retry-After'));
  if (exposed !== undefined) headers.set('Access-Control-Expose-Headers', exposed);
}

/** The caller's request id if it is a short token of safe characters, else a new one. */
export function requestIdFrom(header: string | undefined): string {
  return header !== undefined && SAFE_ID.test(header) ? header : randomUUID();
}

function isPino(logger: AppDeps['logger']): logger is Logger {
  return logger !== undefined && typeof (logger as Partial<Logger>).child === 'function' && typeof (logger as Partial<Logger>).info === 'function';
}

/** `key=…` query values replaced by `[redacted]`, whatever the spelling of the name. */
export function redactUrl(pathAndQuery: string): string {
  const q = pathAndQuery.indexOf('?');
  // a query without the letters of `key` (nor an escape or `+` that could spell them) names no key
  if (q < 0 || !MAY_NAME_KEY.test(pathAndQuery.slice(q + 1))) return pathAndQuery;
  const parts = pathAndQuery.slice(q + 1).split('&');
  let changed = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    // (most query strings have an escape somewhere, in a value: only a name that may spell `key` is decoded)
    if (!MAY_NAME_KEY.test(rawName)) continue;
    let name = rawName;
    try {
      name = decodeURIComponent(rawName.replace(/\+/g, ' '));
    } catch {
      /* keep the raw name */
    }
    if (name.trim().toLowerCase() === 'key') {
      parts[i] = `${rawName}=[redacted]`;
      changed = true;
    }
  }
  return changed ? `${pathAndQuery.slice(0, q)}?${parts.join('&')}` : pathAndQuery;
}

const S = pino.symbols;
/** (pino has it, its types do not) */
const MSG_PREFIX = (S as unknown as Record<string, symbol | undefined>).msgPrefixSym;

/**
 * Whether `logger` writes a line as pino's generic writing would make it from the line's fields:
 * no mixin, hooks, log formatter, message prefix or nesting, `msg` for the message, and a
 * destination that needs no metadata of each line (a multistream does). Ours does (`src/log.ts`).
 */
export function writesPlainLines(logger: Logger): boolean {
  const l = logger as unknown as Record<symbol, unknown>;
  const formatters = l[S.formattersSym] as { log?: unknown };
  const hooks = l[S.hooksSym] as { logMethod?: unknown; streamWrite?: unknown };
  const stream = l[S.streamSym] as Record<symbol, unknown> | undefined;
  return (
    l[S.mixinSym] === undefined &&
    formatters.log === undefined &&
    hooks.logMethod === undefined &&
    hooks.streamWrite === undefined &&
    l[S.messageKeySym] === 'msg' &&
    (MSG_PREFIX === undefined || !l[MSG_PREFIX]) &&
    !l[S.nestedKeySym] &&
    stream !== undefined &&
    typeof (stream as { write?: unknown }).write === 'function' &&
    !stream[S.needsMetadataGsym]
  );
}

type LineLevel = 'info' | 'debug' | 'error';

/** A request's line, as logged when the request did not fail. */
export interface RequestLine {
  reqId: string;
  method: string;
  route: string;
  url: string;
  status: number;
  ms: number;
}

/**
 * The text pino writes for `logger[level](line, 'request')`, made directly: its generic writing
 * of an object (each value's type looked at, strings escaped character by character in
 * JavaScript) was most of a request line's cost, some 5 µs a request. For a logger that
 * `writesPlainLines`; the line holds only strings and finite numbers, and no field pino redacts.
 */
export function plainRequestLine(logger: Logger, level: LineLevel, line: RequestLine): string {
  const l = logger as unknown as Record<symbol, unknown>;
  const levelPrefix = (l[S.lsCacheSym] as Record<number, string>)[logger.levels.values[level]!];
  const time = (l[S.timeSym] as () => string)();
  return (
    `${levelPrefix}${time}${l[S.chindingsSym] as string},"reqId":${JSON.stringify(line.reqId)},"method":${JSON.stringify(line.method)}` +
    `,"route":${JSON.stringify(line.route)},"url":${JSON.stringify(line.url)},"status":${line.status},"ms":${line.ms},"msg":"request"${l[S.endSym] as string}`
  );
}

/** Path and query of a request URL. */
function pathAndQuery(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start < 0 ? '/' : url.slice(start);
}

/**
 * The request log of an app: ids, the request's logger and its line, as plain steps the request
 * frame (request-frame.ts) takes around each request.
 */
export class RequestLog {
  private readonly base: Logger;
  /** Whether a request's line may be written by `plainLine` (see `writesPlainLines`). */
  private readonly plain: boolean;

  constructor(logger: AppDeps['logger']) {
    this.base = isPino(logger) ? logger : silent;
    this.plain = writesPlainLines(this.base);
  }

  /** Gives the request its id and its logger; returns the id. */
  begin(c: AppContext): string {
    const reqId = requestIdFrom(requestHeader(c, 'x-request-id'));
    c.set('requestId', reqId);
    c.set('log', new RequestLogger(this.base, reqId));
    return reqId;
  }

  /** Puts the id on the answer, readable by cross-origin scripts. */
  stamp(c: AppContext, reqId: string): void {
    // an answer made complete (`jsonText`) carries the id and exposes it already
    if (c.res === c.get('completeAnswer')) return;
    try {
      c.res.headers.set(REQUEST_ID_HEADER, reqId);
    } catch {
      // Immutable headers (a response passed through as is): copy it.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set(REQUEST_ID_HEADER, reqId);
    }
    exposeHeaders(c.res.headers);
  }

  /** The request's line, when its level is written; `started` is `performance.now()` at its start. */
  write(c: AppContext, reqId: string, route: string, started: number): void {
    const status = c.res.status;
    const level = status >= 500 ? 'error' : QUIET_PATHS.has(c.req.path) ? 'debug' : 'info';
    // the line is built only when it is written
    if (!this.base.isLevelEnabled(level)) return;
    const url = redactUrl(pathAndQuery(c.req.url));
    // `reqId` first, as the request's logger puts it, without copying the line into another object
    const line: RequestLine = {
      reqId,
      method: c.req.method,
      route,
      url: url.length > MAX_LOGGED_URL ? `${url.slice(0, MAX_LOGGED_URL)}…` : url,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
    };
    if (c.error) this.base[level]({ ...line, err: c.error }, 'request');
    else if (this.plain) this.plainLine(level, line);
    else this.base[level](line, 'request');
  }

  private plainLine(level: LineLevel, line: RequestLine): void {
    ((this.base as unknown as Record<symbol, unknown>)[S.streamSym] as { write(text: string): unknown }).write(plainRequestLine(this.base, level, line));
  }
}
