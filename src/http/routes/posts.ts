/** GET /posts/:post_id (reference §5.6): not destroyed, topic not hidden, forum `normal`; else 404. */
import { Hono } from 'hono';
import type { AppEnv } from '../env/context.js';
import { notFound } from '../answers/errors.js';
import { isPostShowable, loadPosts } from '../../contexts/forums/posts.js';
import { renderPostRows } from '../render/posts.js';
import { cacheFor } from '../middleware/cache.js';
import { validPath } from '../request/validate.js';

export function postRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/posts/:post_id', validPath('post_id'), async (c) => {
    const id = c.req.valid('param').post_id;
    const deps = c.get('deps');
    const data = (await loadPosts(deps.db, [id])).get(id);
    if (!data || !isPostShowable(data)) return notFound(c);
    const [post] = await renderPostRows(deps, [{ post: data.post, topicHidden: false }]);
    if (!post) return notFound(c);
    cacheFor(c, 60);
    return c.json({ post });
  });

  return app;
}
