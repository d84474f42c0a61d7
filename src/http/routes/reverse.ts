/**
 * POST /search/reverse (reference §7; POST only, a GET is 404 like every unknown route).
 *
 * Input: `url` from the query string or the body (JSON or form), or an uploaded multipart file
 * named `image` or `image[image]`; `distance` and `limit` from the query or the body (see
 * images/reverse-search.ts for how they are read).
 *
 * Always 200 `{"images": [...], "interactions": [], "total": N}`, images closest first (see
 * contexts/images/reverse-search.ts for the matching), seen through the caller's filter: hidden
 * images are never returned, spoilered ones are flagged as in every list. As in the reference, a
 * missing file, a URL that cannot be fetched (not https, a private or forbidden address — refused
 * before any request is made —, a bad status, too large), a file that cannot be analysed (a
 * render or frame bomb whose decode passes its deadline or memory included: it runs in a child
 * process that is killed then, or as soon as the client hangs up, src/media/sandbox/), or an
 * invalid `limit` all give the empty result. Error statuses are only for the request itself: a
 * body other than multipart over 8 KiB is 413 (a multipart one over the upload limit gives the
 * empty result, as a file too large to fetch does), a full decode queue is 503 with
 * `Retry-After`, and a client past its bound of reverse searches (REVERSE_SEARCH_CONCURRENCY at
 * once, REVERSE_SEARCH_RATE; checked before the body is read, whatever RATE_LIMITS says) is 429
 * with `Retry-After`; a client refused again before its Retry-After is over gets that 429 only
 * after a pause of about a second, with `Connection: close` and its body left unread (the tarpit,
 * src/http/tarpit.ts). An uploaded file is read as it streams: one whose first bytes declare more
 * pixels than the limit is answered at once, the rest of the body dropped unread. So that a client can tell
 * "nothing similar" from "nothing searched", the empty answers given because the URL was not
 * fetched or the image not read carry a header:
 *
 *     Warning: 199 tagwise "url not fetched: <code>"     (code: bad_url, forbidden_address,
 *                                                          too_many_redirects, timeout, too_large,
 *                                                          http_status, network)
 *     Warning: 199 tagwise "image not readable"
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import { reverseSearch, searchKeyOf } from '../../contexts/images/reverse-search.js';
import { MAX_IMAGE_SIZE } from '../../media/analyze.js';
import { isMediaError } from '../../media/errors.js';
import { IntakeGuard } from '../../media/intake-guard.js';
import { FetchError, safeFetch } from '../../media/safe-fetch.js';
import { visibleImages } from '../../search/requests/index.js';
import type { AppContext, AppEnv } from '../context.js';
import { ClientGate, parseRate } from '../../limits/index.js';
import { limitBody } from '../middleware/body-limit.js';
import { tooManyResponse } from '../middleware/limits.js';
import { clientAddress } from '../client-address.js';
import { readMultipartImage } from '../multipart-image.js';
import { renderImages } from '../render/images.js';
import { tarpitOf } from '../tarpit.js';
import type { ImageListResponse } from '../schemas/envelopes.js';
import { routeQuery } from '../schemas/params.js';
import { queryValues } from '../validate.js';
import { hiddenBy } from '../../contexts/search/filter.js';
import type { DepsWithUploads } from '../upload-deps.js';

type Params = Record<string, unknown>;

/** Largest body that is not multipart: `url`, `distance` and `limit` fit many times over. */
export const MAX_PARAMS_BODY_BYTES = 8 * 1024;

const limitParamsBody = limitBody(MAX_PARAMS_BODY_BYTES);

const isMultipart = (type: string | undefined) => /^multipart\/form-data\s*(;|$)/i.test(type ?? '');

const EMPTY = { images: [], interactions: [], total: 0 };
const NOT_READABLE = '199 tagwise "image not readable"';

/** The body's fields: JSON object, or form fields and files. Unreadable bodies give none. */
async function bodyParams(c: AppContext): Promise<Params> {
  const type = c.req.header('content-type') ?? '';
  try {
    if (/^application\/json\s*(;|$)/i.test(type)) {
      const parsed: unknown = JSON.parse(await c.req.text());
      return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Params) : {};
    }
    if (/^application\/x-www-form-urlencoded\s*(;|$)/i.test(type)) {
      return (await c.req.parseBody()) as Params;
    }
  } catch {
    // Malformed bodies carry nothing usable.
  }
  return {};
}

function str(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

const gates = new WeakMap<object, ClientGate>();

/** The per-client bound of these deps' app (`REVERSE_SEARCH_CONCURRENCY`, `REVERSE_SEARCH_RATE`). */
function gateOf(deps: DepsWithUploads): ClientGate {
  let gate = gates.get(deps);
  if (!gate) {
    const { concurrency, rate } = deps.config.limits.reverseSearch;
    gate = new ClientGate(deps.db, { name: 'reverse-search', concurrency, rate: parseRate(rate) });
    gates.set(deps, gate);
  }
  return gate;
}

export function reverseRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post(
    '/search/reverse',
    async (c, next) => {
      // Before anything of the body is read: a client's searches at once, and their rate.
      const deps = c.get('deps') as DepsWithUploads;
      const user = c.get('user');
      const identity = user ? `user:${user.id}` : `ip:${clientAddress(c, deps.config.trustProxy) ?? 'unknown'}`;
      const entered = await gateOf(deps).enter(identity);
      if (!entered.ok) {
        const wait = entered.retryAfterSeconds;
        return tarpitOf(deps).hold(c, identity, wait, () => tooManyResponse(c, wait));
      }
      try {
        await next();
      } finally {
        // the slot is free in every process before the answer leaves
        await entered.release();
      }
    },
    async (c, next) => {
      // Only a multipart body may carry a file (counted by readMultipartImage as it streams); any
      // other body needs a few parameters at most: counted while it streams in, and refused at
      // once by its Content-Length.
      if (isMultipart(c.req.header('content-type'))) return next();
      return limitParamsBody(c, next);
    },
    async (c) => {
      const deps = c.get('deps') as DepsWithUploads;
      const maxBytes = deps.upload?.maxBytes ?? MAX_IMAGE_SIZE;
      let body: Params = {};
      let bytes: Buffer | undefined;
      if (isMultipart(c.req.header('content-type'))) {
        const read = await readMultipartImage(c, { fileFields: ['image', 'image[image]'], maxFileBytes: maxBytes });
        if (read.kind === 'refused') return c.json(EMPTY, 200, { Warning: NOT_READABLE });
        if (read.kind === 'too_large') return c.json(EMPTY);
        if (read.kind === 'read') ({ fields: body, file: bytes } = read);
      } else {
        body = await bodyParams(c);
      }
      const query = queryValues(c.req.url);
      const param = (name: string) => query[name] ?? str(body[name]);
      // An invalid `limit` is the only value the schema refuses: the reference answers nothing.
      const params = routeQuery.reverse.safeParse({ url: param('url'), distance: param('distance'), limit: param('limit') });
      if (!params.success) return c.json(EMPTY);
      const { limit, distance } = params.data;

      if (!bytes) {
        const url = params.data.url?.trim();
        if (!url) return c.json(EMPTY);
        const guard = new IntakeGuard();
        try {
          bytes = (
            await safeFetch(url, {
              allowHosts: deps.config.fetchAllowHosts,
              maxBytes,
              inspect: (chunk) => guard.push(chunk),
              ...(deps.upload?.fetchTimeoutMs !== undefined ? { totalTimeoutMs: deps.upload.fetchTimeoutMs } : {}),
            })
          ).bytes;
        } catch (error) {
          if (error instanceof FetchError) return c.json(EMPTY, 200, { Warning: `199 tagwise "url not fetched: ${error.code}"` });
          if (isMediaError(error)) return c.json(EMPTY, 200, { Warning: NOT_READABLE });
          throw error;
        }
      }

      const key = await searchKeyOf(bytes, { maxSize: maxBytes, ...deps.upload?.ffmpeg }, c.req.raw.signal);
      if (!key) return c.json(EMPTY, 200, { Warning: NOT_READABLE });
      const user = c.get('user');
      const filter = await c.get('currentFilter')();
      const visible = visibleImages({ filters: hiddenBy(deps, filter, user), ...(user === null ? {} : { userId: user.id }) });
      const found = await reverseSearch(deps, { key, distance, limit, visible });
      // Hidden from users since the engine last heard of it (merged or deleted) or gone: never listed
      // nor counted, as the reference's search in PostgreSQL never finds them.
      const views = (await renderImages(deps, found.ids, { filter, user })).filter((image) => !image.hidden_from_users);
      const total = Math.max(0, found.total - (found.ids.length - views.length));
      return c.json({ images: views, interactions: [], total } satisfies z.output<typeof ImageListResponse>);
    },
  );

  return app;
}
