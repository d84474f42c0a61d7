/** GET /profiles/:user_id (reference §5.8): 404 for unknown and deactivated users. */
import { Hono } from 'hono';
import { loadProfile } from '../../contexts/users/profiles.js';
import type { AppEnv } from '../env/context.js';
import { notFound } from '../answers/errors.js';
import { cacheFor } from '../middleware/cache.js';
import { validPath } from '../request/validate.js';
import { isPublicLink, profileView } from '../../api/views/profile.js';

export function profileRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/profiles/:user_id', validPath('user_id'), async (c) => {
    const id = c.req.valid('param').user_id;
    const { db, config } = c.get('deps');
    const profile = await loadProfile(db, id);
    if (!profile) return notFound(c);
    cacheFor(c, 300);
    return c.json({ user: profileView(config, profile.user, profile.links.filter(isPublicLink), profile.awards) });
  });

  return app;
}
