/**
 * Caching and CORS headers (usage term 1: clients must cache and respect expiry times).
 *
 * - A route states how its successful answer may be cached with `cacheFor(c, seconds, options)`:
 *   `Cache-Control: public, max-age=N`, or `private, max-age=N` when the answer depends on the
 *   caller's `key` and a key user is present. Answers without a policy (errors, 3xx) get
 *   `no-store` unless the route set its own `Cache-Control` (file serving does).
 * - Successful JSON answers get a strong `ETag` (hash of the exact body bytes); a matching
 *   `If-None-Match` turns the answer into a bodiless 304 with the same validators.
 * - `Vary: Accept-Encoding` always: auth and filter choice travel in the query string, which is
 *   part of every cache key, and no request header changes an answer.
 * - CORS: `Access-Control-Allow-Origin: *` on GET, HEAD and OPTIONS; a preflight is answered 204.
 */
import { hash } from 'node:crypto';
import type { AppContext, CachePolicy } from '../context.js';
import { exposedHeaders } from './request-log.js';
import { requestHeader } from '../request-header.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { processCaches } from '../../caches/registry.js';

export interface CacheOptions {
  /** The answer depends on who the caller is (`key`). */
  dependsOnUser?: boolean;
}

/** Declare the cache lifetime of this request's successful answer. */
export function cacheFor(c: AppContext, maxAge: number, options: CacheOptions = {}): void {
  c.set('cachePolicy', { maxAge, private: options.dependsOnUser === true && c.get('user') != null });
}

const CORS_METHODS = 'GET, HEAD, OPTIONS';

/**
 * A 200 JSON answer from JSON the route already has (text or UTF-8), with its ETag: `finishCacheHeaders` would
 * otherwise clone the response to read the body back (for search pages, a large share of the
 * answer's cost). The tag is a digest of `tagSource`, the body itself unless the route has
 * something shorter that determines the body just as well.
 *
 * A GET under a cache policy (`cacheFor`, called before) is answered complete here, 304 included:
 * every header `finishCacheHeaders` and the request log would add, as one plain record in the order
 * Node wrote them before (names sorted as `Headers` iterates them, then `Content-Length`), so that
 * `@hono/node-server` passes it to Node without a `Headers` object, its copies and its sorting.
 * Headers set with `c.header` before are not carried over; the routes answering this way set none.
 */
export function jsonText(c: AppContext, body: string | Uint8Array<ArrayBuffer>, tagSource: string | Uint8Array = body): Response {
  return taggedJson(c, body, sourceEtag(tagSource));
}

/** `jsonText` with its entity tag made already (`sourceEtag` of what determines the body). */
export function taggedJson(c: AppContext, body: string | Uint8Array<ArrayBuffer>, etag: string): Response {
  const policy = c.get('cachePolicy');
  // HEAD keeps the general path: Hono answers it from the GET's answer, and that would add a Content-Length
  if (c.req.method !== 'GET' || !policy) {
    c.header('ETag', etag);
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  }
  const requestId = c.get('requestId');
  const exposed = requestId === undefined ? undefined : exposedHeaders(true, false);
  const fresh = etagMatches(requestHeader(c, 'if-none-match'), etag);
  const headers: Record<string, string> = { 'access-control-allow-origin': '*' };
  if (exposed !== undefined) headers['access-control-expose-headers'] = exposed;
  headers['cache-control'] = cacheControl(policy);
  if (!fresh) headers['content-type'] = 'application/json';
  headers.etag = etag;
  headers.vary = 'Accept-Encoding';
  if (requestId !== undefined) headers['x-request-id'] = requestId;
  if (!fresh) headers['Content-Length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
  const answer = fresh ? new Response(null, { status: 304, headers }) : new Response(body, { status: 200, headers });
  c.set('completeAnswer', answer);
  return answer;
}

function cacheControl(policy: CachePolicy): string {
  return `${policy.private ? 'private' : 'public'}, max-age=${policy.maxAge}`;
}

/** The answer to a CORS preflight (any OPTIONS request: the request frame answers it before routing). */
export function preflightAnswer(c: AppContext): Response {
  const headers = new Headers({
    'Access-Control-Allow-Origin': '*',
    'Access-Control-Allow-Methods': CORS_METHODS,
    'Access-Control-Max-Age': '86400',
    'Cache-Control': 'public, max-age=86400',
    Vary: 'Accept-Encoding',
  });
  const requested = c.req.header('Access-Control-Request-Headers');
  if (requested && /^[\w\-, ]{1,500}$/.test(requested)) headers.set('Access-Control-Allow-Headers', requested);
  return new Response(null, { status: 204, headers });
}

/** A strong entity tag over the body bytes (or the UTF-8 of a string). */
export function bodyEtag(body: ArrayBuffer | Uint8Array | string): string {
  const bytes = typeof body === 'string' ? body : body instanceof Uint8Array ? body : new Uint8Array(body);
  // the one-shot hash: a Hash object per answer cost more than the digest of a short source
  return `"${hash('sha256', bytes, 'base64url').slice(0, 32)}"`;
}

/**
 * Tags of the short sources routes name instead of their bodies (an image's digest and its
 * interactions), remembered: the same image read again needs no hash. Longer sources (whole
 * bodies) are hashed each time; the least used go when the table is full. A tag is a function of
 * its source: nothing invalidates one.
 */
const SHORT_SOURCE = 256;
const REMEMBERED_TAGS = 16_384;
const tagOfShortSource = new BoundedMap<string, string>({ maxEntries: REMEMBERED_TAGS });
const tagCounts = processCaches.register({
  name: 'etag_of_source',
  budget: { entries: REMEMBERED_TAGS },
  invalidatedBy: [],
  held: () => ({ entries: tagOfShortSource.size }),
});

/** The entity tag of a body determined by `source` (the body itself, or something shorter). */
export function sourceEtag(source: string | Uint8Array): string {
  if (typeof source !== 'string' || source.length > SHORT_SOURCE) return bodyEtag(source);
  let tag = tagOfShortSource.get(source);
  if (tag === undefined) {
    tagCounts.miss();
    tag = bodyEtag(source);
    tagOfShortSource.set(source, tag);
  } else {
    tagCounts.hit();
  }
  return tag;
}

/**
 * Whether an `If-None-Match` value matches an entity tag. The comparison is the weak one RFC 9110
 * prescribes for this header: a `W/` prefix on either side is ignored.
 */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  if (ifNoneMatch.trim() === '*') return true;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  const want = strip(etag);
  return ifNoneMatch.split(',').some((t) => strip(t) === want);
}

export function appendVary(headers: Headers, value: string): void {
  const current = headers.get('Vary');
  if (!current) {
    headers.set('Vary', value);
    return;
  }
  const present = current.split(',').map((v) => v.trim().toLowerCase());
  if (!present.includes(value.toLowerCase()) && !present.includes('*')) headers.set('Vary', `${current}, ${value}`);
}

/** Headers kept on a 304 (RFC 9110 §15.4.5). */
const NOT_MODIFIED_HEADERS = [
  'cache-control', 'content-location', 'date', 'etag', 'expires', 'vary', 'last-modified',
  'access-control-allow-origin',
];

export function notModified(from: Headers): Response {
  const headers = new Headers();
  for (const name of NOT_MODIFIED_HEADERS) {
    const value = from.get(name);
    if (value !== null) headers.set(name, value);
  }
  return new Response(null, { status: 304, headers });
}

/**
 * The caching headers of a finished answer (the request frame calls it once the route has
 * answered, errors included): CORS, `Vary`, `Cache-Control`, the ETag and a 304 for a matching
 * `If-None-Match`. An answer `jsonText` made complete has them all already. A promise only when
 * the body must be read back for its ETag.
 */
export function finishCacheHeaders(c: AppContext): Promise<void> | undefined {
  const res = c.res;
  if (res === c.get('completeAnswer')) return undefined;
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') res.headers.set('Access-Control-Allow-Origin', '*');
  appendVary(res.headers, 'Accept-Encoding');

  const policy = c.get('cachePolicy');
  if (!policy || res.status !== 200) {
    if (!res.headers.has('Cache-Control')) res.headers.set('Cache-Control', 'no-store');
    return undefined;
  }
  res.headers.set('Cache-Control', cacheControl(policy));
  if (res.headers.has('ETag')) {
    answerNotModified(c, res);
    return undefined;
  }
  return res
    .clone()
    .arrayBuffer()
    .then((body) => {
      res.headers.set('ETag', bodyEtag(body));
      answerNotModified(c, res);
    });
}

/** The answer turned into a 304 when the request's `If-None-Match` matches its ETag. */
function answerNotModified(c: AppContext, res: Response): void {
  if (etagMatches(requestHeader(c, 'if-none-match'), res.headers.get('ETag')!)) {
    const headers = res.headers;
    c.res = undefined;
    c.res = notModified(headers);
  }
}
