/**
 * GET /oembed?url= (reference §5.8). The image id is read from the URL's path (query and
 * fragment ignored): a CDN file path `/img/(view/|download/)?Y/M/D/ID…`, else — unless the path
 * is some other `/img/` path — the first `/<digits>` (`/images/123`, `/123`). No URL, no path, no
 * id, an id out of range, an unknown or a hidden image: 404.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { cacheFor, jsonText } from '../middleware/cache.js';
import { cachedImages } from '../render/images.js';
import { RecordId, routeQuery } from '../schemas/params.js';
import { validQuery } from '../validate.js';
import { OEMBED_CACHE_AGE } from '../views/oembed.js';

const CDN_PATH = /\/img\/(?:view\/|download\/)?\d{4}\/\d{1,2}\/\d{1,2}\/(\d+)[./_-]/;

/** The path of a URL, also for scheme-less input (`example.com/images/1`, `/images/1`). */
export function urlPath(url: string): string {
  const withoutFragment = url.split('#', 1)[0]!;
  const withoutQuery = withoutFragment.split('?', 1)[0]!;
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(.*)$/.exec(withoutQuery);
  return m ? m[1]! : withoutQuery;
}

/** The image id an app or CDN URL points at, or undefined. */
export function imageIdFromUrl(url: string): number | undefined {
  const path = urlPath(url);
  if (path === '') return undefined;
  const cdn = CDN_PATH.exec(path);
  if (cdn) return RecordId.safeParse(cdn[1]).data;
  if (path.includes('/img/')) return undefined;
  const plain = /\/(\d+)/.exec(path);
  return plain ? RecordId.safeParse(plain[1]).data : undefined;
}

export function oembedRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/oembed', validQuery(routeQuery.oembed), async (c) => {
    const { url } = c.req.valid('query');
    const id = url ? imageIdFromUrl(url) : undefined;
    if (id === undefined) return notFound(c);
    // the answer is rendered with the image's JSON and kept beside it (src/caches/image-json-cache.ts)
    const [image] = await cachedImages(c.get('deps'), [id], true);
    if (!image?.oembed) return notFound(c);
    cacheFor(c, OEMBED_CACHE_AGE);
    return jsonText(c, image.oembed, `oembed ${image.digest}`);
  });

  return app;
}
