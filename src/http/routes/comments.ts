/** GET /comments/:comment_id (reference §5.9): 404 if missing or destroyed, 403 on a hidden image. */
import { Hono } from 'hono';
import type { AppEnv } from '../env/context.js';
import { forbidden, notFound } from '../answers/errors.js';
import { loadComments } from '../../contexts/comments/load.js';
import { renderComments } from '../render/comments.js';
import { cacheFor } from '../middleware/cache.js';
import { validPath } from '../request/validate.js';

export function commentRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/comments/:comment_id', validPath('comment_id'), async (c) => {
    const id = c.req.valid('param').comment_id;
    const deps = c.get('deps');
    const data = (await loadComments(deps.db, [id])).get(id);
    if (!data || data.comment.destroyedContent) return notFound(c);
    if (data.imageHidden) return forbidden(c);
    const [comment] = await renderComments(deps, [id]);
    if (!comment) return notFound(c);
    cacheFor(c, 60);
    return c.json({ comment });
  });

  return app;
}
