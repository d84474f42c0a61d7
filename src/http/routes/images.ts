/** GET /images/featured and /images/:image_id. */
import { and, desc, eq } from 'drizzle-orm';
import { Hono } from 'hono';
import type { z } from 'zod';
import { imageFeatures, images } from '../../db/schema/index.js';
import type { AppContext, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { loadInteractions, renderImage } from '../loaders/images.js';
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
  const interactions = await loadInteractions(deps.db, user, [image.id]);
  cacheFor(c, IMAGE_MAX_AGE, { dependsOnUser: true });
  return c.json({ image, interactions } satisfies z.output<typeof ImageResponse>);
}

export function imageRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  /** The newest feature whose image is not hidden. */
  app.get('/images/featured', async (c) => {
    const rows = await c
      .get('deps')
      .db.select({ imageId: imageFeatures.imageId })
      .from(imageFeatures)
      .innerJoin(images, eq(images.id, imageFeatures.imageId))
      .where(and(eq(images.hiddenFromUsers, false)))
      .orderBy(desc(imageFeatures.createdAt), desc(imageFeatures.id))
      .limit(1);
    const feature = rows[0];
    if (!feature) return notFound(c);
    return respondWithImage(c, feature.imageId);
  });

  /** Any image, hidden ones included (with `hidden_from_users` and the merge or deletion reason). */
  app.get('/images/:image_id', validPath('image_id'), (c) => respondWithImage(c, c.req.valid('param').image_id));

  return app;
}
