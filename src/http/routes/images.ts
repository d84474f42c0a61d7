/** GET /images/featured and /images/:image_id. */
import { Hono } from 'hono';
import type { z } from 'zod';
import { featuredImageId } from '../../contexts/images/features.js';
import type { AppContext, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { renderInteractions, renderImage } from '../render/images.js';
import { cacheFor } from '../middleware/cache.js';
import type { ImageResponse } from '../schemas/envelopes.js';
import { validPath } from '../validate.js';

/** Image answers change with votes and comments; a minute keeps them fresh. */
const IMAGE_MAX_AGE = 60;

async function respondWithImage(c: AppContext, id: number): Promise<Response> {
  const deps = c.get('deps');
  const user = c.get('user');
  const filter = await c.get('currentFilter')();
  const image = await renderImage(deps, id, { filter, user });
  if (!image) return notFound(c);
  const interactions = await renderInteractions(deps.db, user, [image.id]);
  cacheFor(c, IMAGE_MAX_AGE, { dependsOnUser: true });
  return c.json({ image, interactions } satisfies z.output<typeof ImageResponse>);
}

export function imageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  /** The newest feature whose image is not hidden. */
  app.get('/images/featured', async (c) => {
    const imageId = await featuredImageId(c.get('deps').db);
    if (imageId === undefined) return notFound(c);
    return respondWithImage(c, imageId);
  });

  /** Any image, hidden ones included (with `hidden_from_users` and the merge or deletion reason). */
  app.get('/images/:image_id', validPath('image_id'), (c) => respondWithImage(c, c.req.valid('param').image_id));

  return app;
}
