/** GET /images/featured and /images/:image_id. */
import { Hono } from 'hono';
import type { AppContext, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { featuredImageAndWatched } from '../../contexts/images/features.js';
import { liveCaches } from '../read-caches.js';
import { renderInteractions, renderImageListJson } from '../render/images.js';
import { cacheFor, jsonText } from '../middleware/cache.js';
import { validPath } from '../validate.js';

/** Image answers change with votes and comments; a minute keeps them fresh. */
const IMAGE_MAX_AGE = 60;

const IMAGE_OPEN = Buffer.from('{"image":');
/** The end of an anonymous caller's answer, made once. */
const NO_INTERACTIONS_CLOSE = Buffer.from(',"interactions":[]}');

/**
 * `{"image": …, "interactions": […]}` (the `ImageResponse` schema), the image's JSON taken from
 * the app's cache of rendered images: no query for an anonymous caller's image that was read
 * before.
 */
async function respondWithImage(c: AppContext, id: number): Promise<Response> {
  const deps = c.get('deps');
  const user = c.get('user');
  const filter = await c.get('currentFilter')();
  const image = await renderImageListJson(deps, [id], { filter, user });
  if (image.parts.length === 0) return notFound(c);
  const interactions = JSON.stringify(await renderInteractions(deps.db, user, [id]));
  cacheFor(c, IMAGE_MAX_AGE, { dependsOnUser: true });
  const close = interactions === '[]' ? NO_INTERACTIONS_CLOSE : Buffer.from(`,"interactions":${interactions}}`);
  const body = Buffer.concat([IMAGE_OPEN, ...image.parts, close]);
  return jsonText(c, body, `image ${image.fingerprint} ${interactions}`);
}

export function imageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  /** The newest feature whose image is not hidden. */
  app.get('/images/featured', async (c) => {
    const { db, caches } = c.get('deps');
    const cache = liveCaches(caches)?.featured;
    const imageId = cache ? await cache.imageId(() => featuredImageAndWatched(db)) : (await featuredImageAndWatched(db)).imageId;
    if (imageId === undefined) return notFound(c);
    return respondWithImage(c, imageId);
  });

  /** Any image, hidden ones included (with `hidden_from_users` and the merge or deletion reason). */
  app.get('/images/:image_id', validPath('image_id'), (c) => respondWithImage(c, c.req.valid('param').image_id));

  return app;
}
