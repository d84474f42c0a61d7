/**
 * POST /images?key=… (spec "Submitting an image", reference §8): submit an image by URL.
 *
 * Answers, in the order they are checked:
 * - 401 `{"error":"Unauthorized"}` without a valid key (the reference sends an empty body; every
 *   error of ours is JSON);
 * - 403 `{"error":"Banned: <reason>","reason":"…","expires_at":"<RFC 3339>"|null}` for a banned user
 *   or IP (looked up on every submission, not cached);
 * - 415 `{"error":…}` unless the content type is application/json;
 * - 413 when the JSON body is larger than 1 MiB (by its Content-Length at once, else as soon as it
 *   passes 1 MiB while streaming); 400 `{"error":…}` for malformed JSON;
 * - 400 `{"errors":{"url"|"description"|…:["is invalid"]}}` when a field has the wrong type;
 * - 429 `{"error":…}` with `Retry-After` past the per-key or per-IP submission rate (the limiter's
 *   `upload` budget, `RATE_LIMIT_UPLOAD`, off with `RATE_LIMITS=off`) — repeated, the limiter bans
 *   (403) — or past the daily cap per user (`UPLOAD_DAILY_CAP`, counted from the images table);
 * - 400 `{"errors":{field:[messages]}}` when the submission fails validation (see images/submit.ts
 *   for the fields and messages, including fetch failures as `image: ["url …"]`);
 * - 200 `{"image": <image with spoilered>, "interactions": []}`.
 *
 * The refusals up to the 413 are answered before the body is read, closing the connection so that
 * the rest is not read either (middleware/body-limit.ts).
 *
 * `url` is read from the body (and, as the spec's route table names it, from the query when the
 * body has none).
 *
 * Optional dependencies read from the app's deps object beside `AppDeps` (see `UploadDeps`): the
 * image store, the shared limiter, and upload settings such as the largest accepted file.
 */
import { crc32 } from 'node:zlib';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import ipaddr from 'ipaddr.js';
import type { z } from 'zod';
import { uploadsInLastDay } from '../../contexts/images/uploads.js';
import { submitImage, type SubmitErrors } from '../../contexts/images/submit.js';
import { findActiveBan, type ActiveBan } from '../../contexts/users/active-bans.js';
import { limitPolicyFrom, RequestLimiter } from '../../limits/index.js';
import type { MediaStorage } from '../../media/storage.js';
import { storageOf } from '../media-storage.js';
import type { DepsWithUploads } from '../upload-deps.js';
import type { AppContext, AppDeps, AppEnv } from '../context.js';
import { errorResponse } from '../errors.js';
import { isJson, leaveBodyUnread, limitBody, refuseUnread } from '../middleware/body-limit.js';
import { renderImage } from '../render/images.js';
import type { BanErrorBody } from '../schemas/common.js';
import { routeQuery, SubmissionBody } from '../schemas/params.js';
import { validQuery } from '../validate.js';
import { formatTime } from '../views/time.js';


/** Largest JSON body of a submission (the description is at most 50,000 bytes). */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;

const defaultLimiters = new WeakMap<AppDeps, RequestLimiter | null>();

/** The image area of the app's storage. */
export function imageStoreOf(deps: AppDeps): MediaStorage {
  return storageOf(deps).area('images');
}

/** The limiter of these deps, or null when limits are off (`RATE_LIMITS=off`). */
export function limiterOf(deps: DepsWithUploads): RequestLimiter | null {
  if (deps.limiter) return deps.limiter;
  if (!deps.config.limits.enabled) return null;
  let limiter = defaultLimiters.get(deps);
  if (limiter === undefined) {
    limiter = new RequestLimiter(deps.db, limitPolicyFrom(deps.config.limits));
    defaultLimiters.set(deps, limiter);
  }
  return limiter;
}

/**
 * The caller's address as stored and matched against IP bans (IPv4-mapped IPv6 as IPv4): the
 * socket's peer, or with `TRUST_PROXY=true` the last `X-Forwarded-For` entry (the address our own
 * reverse proxy saw), as the request-limits middleware reads it.
 */
export function clientIp(c: Context, trustProxy = false): string | undefined {
  const normalise = (value: string | undefined) => {
    const text = value?.trim();
    if (!text || !ipaddr.isValid(text)) return undefined;
    return ipaddr.process(text).toString();
  };
  if (trustProxy) {
    const forwarded = normalise(c.req.header('x-forwarded-for')?.split(',').at(-1));
    if (forwarded) return forwarded;
  }
  try {
    return normalise(getConnInfo(c).remote.address);
  } catch {
    return undefined;
  }
}

/** `"a" <> crc32(User-Agent)`, the reference's fingerprint of API requests. */
export function fingerprintOf(userAgent: string | undefined): string {
  return `a${crc32(Buffer.from(userAgent ?? '', 'utf8')) >>> 0}`;
}

/** 403 for a banned caller, in the shape every limited route uses. */
export function banResponse(c: Context, ban: ActiveBan): Response {
  const body = { error: `Banned: ${ban.reason}`, reason: ban.reason, expires_at: formatTime(ban.validUntil) };
  return c.json(body satisfies z.output<typeof BanErrorBody>, 403);
}

/** The body as the OpenAPI document states it; fields of the wrong type are 400. */
type Body = z.output<typeof SubmissionBody>;

/** Type errors of the body as an errors map: `image.tag_input` → `tag_input: ["is invalid"]`. */
function typeErrors(error: z.ZodError): SubmitErrors {
  const errors: SubmitErrors = {};
  for (const issue of error.issues) {
    const path = issue.path.map(String);
    const field = path[0] === 'image' && path.length > 1 ? path[1]! : (path[0] ?? 'image');
    const list = (errors[field] ??= []);
    if (!list.includes('is invalid')) list.push('is invalid');
  }
  return errors;
}

function sourcesOf(image: NonNullable<Body['image']>): string[] {
  const s = image.sources;
  if (!s) return [];
  if (Array.isArray(s)) return s;
  return Object.keys(s)
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b))
    .map((k) => s[k]?.source ?? '');
}


/** The caller's address as `{ ip }` for the ban lookup and the submission, or nothing when unknown. */
function ipOf(c: AppContext): { ip?: string } {
  const ip = clientIp(c, c.get('deps').config.trustProxy);
  return ip ? { ip } : {};
}

/** Seconds until the oldest of the last day's uploads leaves the window. */
async function dailyCapWait(c: AppContext, userId: number): Promise<number | null> {
  const { db, config } = c.get('deps');
  const cap = config.limits.uploadDailyCap;
  const recent = await uploadsInLastDay(db, userId);
  if (recent.count < cap) return null;
  const oldest = recent.oldest ? recent.oldest.getTime() : Date.now();
  return Math.max(1, Math.ceil((oldest + 86_400_000 - Date.now()) / 1000));
}

export function uploadRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  // Refusals before the body is read leave it unread (middleware/body-limit.ts): the key, bans
  // and the content type are checked first, then the body is read up to its limit.
  const refusalsBeforeBody: MiddlewareHandler<AppEnv> = async (c, next) => {
    const deps = c.get('deps') as DepsWithUploads;
    const user = c.get('user');
    if (!user) return refuseUnread(c, 401, 'Unauthorized');
    const ban = await findActiveBan(deps.db, { userId: user.id, ...ipOf(c) });
    if (ban) {
      leaveBodyUnread(c);
      return banResponse(c, ban);
    }
    if (!isJson(c.req.header('content-type'))) return refuseUnread(c, 415, 'Content-Type must be application/json');
    await next();
  };

  app.post('/images', validQuery(routeQuery.submission), refusalsBeforeBody, limitBody(MAX_JSON_BODY_BYTES), async (c) => {
    const deps = c.get('deps') as DepsWithUploads;
    const user = c.get('user')!;
    const { ip } = ipOf(c);
    const text = await c.req.text();
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      return errorResponse(c, 400, 'Malformed JSON body');
    }
    const parsed = SubmissionBody.safeParse(raw);
    if (!parsed.success) return c.json({ errors: typeErrors(parsed.error) }, 400);
    const body = parsed.data;
    const image = body.image ?? {};

    const limiter = limiterOf(deps);
    if (limiter) {
      for (const caller of [{ userId: user.id }, ...(ip ? [{ ip }] : [])]) {
        const decision = await limiter.check(caller, 'upload');
        if (decision.kind === 'banned') return banResponse(c, decision.ban);
        if (decision.kind === 'limited') {
          c.header('Retry-After', String(decision.retryAfterSeconds));
          return errorResponse(c, 429, `Too many submissions; retry in ${decision.retryAfterSeconds} s`);
        }
      }
    }
    const wait = await dailyCapWait(c, user.id);
    if (wait !== null) {
      c.header('Retry-After', String(wait));
      return errorResponse(c, 429, `Daily limit of ${deps.config.limits.uploadDailyCap} submissions reached`);
    }

    const options = deps.upload ?? {};
    const result = await submitImage(
      deps.db,
      {
        user,
        ip: ip ?? null,
        fingerprint: fingerprintOf(c.req.header('user-agent')),
        url: body.url ?? c.req.valid('query').url ?? null,
        description: image.description ?? '',
        tagInput: image.tag_input ?? '',
        sourceUrl: image.source_url ?? null,
        sources: sourcesOf(image),
        anonymous: image.anonymous === true || image.anonymous === 'true' || image.anonymous === '1',
      },
      {
        fileStore: imageStoreOf(deps),
        signal: c.req.raw.signal,
        ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
        ...(options.ffmpeg ? { media: options.ffmpeg } : {}),
        fetch: {
          allowHosts: deps.config.fetchAllowHosts,
          ...(options.fetchTimeoutMs !== undefined ? { totalTimeoutMs: options.fetchTimeoutMs } : {}),
        },
      },
    );
    if (!result.ok) return c.json({ errors: result.errors }, 400);

    const filter = await c.get('currentFilter')();
    const view = await renderImage(deps, result.imageId, { filter, user });
    return c.json({ image: view, interactions: [] });
  });

  return app;
}
