/**
 * GET /tags/:tag_id — by slug only (reference §5.7): `artist-colon-hoofbeats` is found,
 * `artist%3Ahoofbeats` (the name) is not. Path segments are percent-decoded first, so
 * `pegasus%2Bpony` finds `pegasus+pony`. Aliased tags are answered as themselves. Answered from
 * the cache of rendered tags (render/tags.ts), as search/tags is.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env/context.js';
import { notFound } from '../answers/errors.js';
import { renderTagBySlug } from '../render/tags.js';
import { cacheFor, jsonText } from '../middleware/cache.js';
import { validPath } from '../request/validate.js';

export function tagRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/tags/:tag_id', validPath('tag_id'), async (c) => {
    const slug = c.req.valid('param').tag_id;
    const tag = await renderTagBySlug(c.get('deps'), slug);
    if (tag === null) return notFound(c);
    cacheFor(c, 300);
    // what `c.json({ tag })` gives, from the tag's JSON text
    return jsonText(c, `{"tag":${tag}}`);
  });

  return app;
}
