/** GET /images/featured and /images/:image_id. */
import { Hono } from 'hono';
import type { AppContext, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { featuredImageAndWatched } from '../../contexts/images/features.js';
import { liveCaches } from '../../caches/read-caches.js';
import { renderInteractions, renderImageListJson } from '../render/images.js';
import { cacheFor, sourceEtag, taggedJson } from '../middleware/cache.js';
import { answerKeepableThrough } from '../../caches/image-answer-cache.js';
import { filterRowNumber } from '../../contexts/filters/row-number.js';
import { pathIdValue } from '../schemas/params.js';
import { nameRoute } from '../route-name.js';

/** Image answers change with votes and comments; a minute keeps them fresh. */
const IMAGE_MAX_AGE = 60;

const IMAGE_OPEN = Buffer.from('{"image":');
/** The end of an anonymous caller's answer, made once. */
const NO_INTERACTIONS_CLOSE = Buffer.from(',"interactions":[]}');

/**
 * `{"image": …, "interactions": […]}` (the `ImageResponse` schema), the image's JSON taken from
 * the app's cache of rendered images: no query for an anonymous caller's image that was read
 * before, and the whole answer kept for the next one who asks through the same filter.
 */
async function respondWithImage(c: AppContext, id: number): Promise<Response> {
  const deps = c.get('deps');
  const user = c.get('user');
  const filter = await c.get('currentFilter')();
  cacheFor(c, IMAGE_MAX_AGE, { dependsOnUser: true });
  const caches = user === null && answerKeepableThrough(filter) ? liveCaches(deps.caches) : null;
  const key = caches === null ? undefined : `${filterRowNumber(filter)} ${id}`;
  const kept = caches?.imageAnswers.find(key, caches.images);
  if (kept !== undefined) return taggedJson(c, kept.body, kept.etag);
  const before = caches?.images.mark();
  const image = await renderImageListJson(deps, [id], { filter, user });
  if (image.parts.length === 0) return notFound(c);
  const interactions = JSON.stringify(await renderInteractions(deps.db, user, [id]));
  const close = interactions === '[]' ? NO_INTERACTIONS_CLOSE : Buffer.from(`,"interactions":${interactions}}`);
  const body = Buffer.concat([IMAGE_OPEN, ...image.parts, close]);
  const etag = sourceEtag(`image ${image.fingerprint} ${interactions}`);
  if (caches !== null) caches.imageAnswers.keepMade(key, caches.images, before!, { ids: [id], total: 1, listed: image.ids, body, etag });
  return taggedJson(c, body, etag);
}

/** The newest feature whose image is not hidden. */
async function featuredImage(c: AppContext): Promise<Response> {
  const { db, caches } = c.get('deps');
  const cache = liveCaches(caches)?.featured;
  const imageId = cache ? await cache.imageId(() => featuredImageAndWatched(db)) : (await featuredImageAndWatched(db)).imageId;
  if (imageId === undefined) return notFound(c);
  return respondWithImage(c, imageId);
}

export function imageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  /**
   * `/images/featured`, and any image by id, hidden ones included (as their stub: `hidden_from_users`
   * and the merge target or deletion reason); anything else is 404. One route: Hono's RegExpRouter cannot hold a
   * fixed name beside a parameter in the same place, and would leave the app on its slower router.
   */
  app.get('/images/:image_id', (c) => {
    const segment = c.req.param('image_id');
    if (segment === 'featured') {
      nameRoute(c, 'image_id', 'featured');
      return featuredImage(c);
    }
    const id = pathIdValue(segment);
    return id === undefined ? notFound(c) : respondWithImage(c, id);
  });

  return app;
}
