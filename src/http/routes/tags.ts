/**
 * GET /tags/:tag_id — by slug only (reference §5.7): `artist-colon-hoofbeats` is found,
 * `artist%3Ahoofbeats` (the name) is not. Path segments are percent-decoded first, so
 * `pegasus%2Bpony` finds `pegasus+pony`. Aliased tags are answered as themselves.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { findTagBySlug } from '../../contexts/tags/load.js';
import { renderTagRows } from '../render/tags.js';
import { cacheFor } from '../middleware/cache.js';
import { validPath } from '../validate.js';

export function tagRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/tags/:tag_id', validPath('tag_id'), async (c) => {
    const slug = c.req.valid('param').tag_id;
    const deps = c.get('deps');
    const row = await findTagBySlug(deps.db, slug);
    if (!row) return notFound(c);
    const [tag] = await renderTagRows(deps, [row]);
    cacheFor(c, 300);
    return c.json({ tag });
  });

  return app;
}
