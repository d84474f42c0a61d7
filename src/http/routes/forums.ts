/**
 * The forum routes (reference §5.6). Only forums with access level `normal` exist for the API;
 * hidden topics and destroyed posts are never shown.
 *
 * Choices beyond the reference:
 * - an unknown or restricted forum is 404 on every route, the topic list included (the
 *   reference answers that one with an empty 200 list);
 * - pages past the end are empty with the true `total` (see middleware/paging.ts).
 */
import { Hono } from 'hono';
import { findForum, listForums } from '../../contexts/forums/forums.js';
import { findTopicPost, topicPostsInWindow } from '../../contexts/forums/posts.js';
import { findTopic, listTopics } from '../../contexts/forums/topics.js';
import type { ForumRow, TopicRow } from '../../contexts/forums/types.js';
import { loadAuthors } from '../../contexts/users/authors.js';
import type { AppContext, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { renderPostRows } from '../render/posts.js';
import { cacheFor } from '../middleware/cache.js';
import { paging } from '../middleware/paging.js';
import { parseId, textParam } from '../params.js';
import { forumView } from '../views/forum.js';
import { topicView } from '../views/topic.js';

async function forumOf(c: AppContext): Promise<ForumRow | undefined> {
  const shortName = textParam(c.req.param('short_name'));
  if (shortName === undefined) return undefined;
  return findForum(c.get('deps').db, shortName);
}

async function topicOf(c: AppContext): Promise<TopicRow | undefined> {
  const forum = await forumOf(c);
  const slug = textParam(c.req.param('topic_slug'));
  if (!forum || slug === undefined) return undefined;
  return findTopic(c.get('deps').db, forum.id, slug);
}

export function forumRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/forums', async (c) => {
    const { rows, total } = await listForums(c.get('deps').db, paging(c));
    cacheFor(c, 300);
    return c.json({ forums: rows.map(forumView), total });
  });

  app.get('/forums/:short_name', async (c) => {
    const forum = await forumOf(c);
    if (!forum) return notFound(c);
    cacheFor(c, 300);
    return c.json({ forum: forumView(forum) });
  });

  /** Sticky topics first, then by last reply, newest first. */
  app.get('/forums/:short_name/topics', async (c) => {
    const forum = await forumOf(c);
    if (!forum) return notFound(c);
    const deps = c.get('deps');
    const { rows, total } = await listTopics(deps.db, forum.id, paging(c));
    const authors = await loadAuthors(deps.db, rows.map((t) => t.userId));
    const list = rows.map((t) => topicView(deps.config, t, t.userId === null ? null : (authors.get(t.userId) ?? null)));
    cacheFor(c, 60);
    return c.json({ topics: list, total });
  });

  app.get('/forums/:short_name/topics/:topic_slug', async (c) => {
    const topic = await topicOf(c);
    if (!topic) return notFound(c);
    const deps = c.get('deps');
    const authors = await loadAuthors(deps.db, [topic.userId]);
    cacheFor(c, 60);
    return c.json({ topic: topicView(deps.config, topic, topic.userId === null ? null : (authors.get(topic.userId) ?? null)) });
  });

  /**
   * Posts whose position falls in the page's window [perPage·(page−1), perPage·page), by
   * position; destroyed posts are dropped (so a page may be short); `total` is the topic's count.
   */
  app.get('/forums/:short_name/topics/:topic_slug/posts', async (c) => {
    const topic = await topicOf(c);
    if (!topic) return notFound(c);
    const deps = c.get('deps');
    const rows = await topicPostsInWindow(deps.db, topic.id, paging(c));
    const list = await renderPostRows(deps, rows.map((post) => ({ post, topicHidden: false })));
    cacheFor(c, 60);
    return c.json({ posts: list, total: topic.postCount });
  });

  app.get('/forums/:short_name/topics/:topic_slug/posts/:post_id', async (c) => {
    const id = parseId(c.req.param('post_id'));
    if (id === undefined) return notFound(c);
    const topic = await topicOf(c);
    if (!topic) return notFound(c);
    const deps = c.get('deps');
    const row = await findTopicPost(deps.db, topic.id, id);
    if (!row) return notFound(c);
    const [post] = await renderPostRows(deps, [{ post: row, topicHidden: false }]);
    if (!post) return notFound(c);
    cacheFor(c, 60);
    return c.json({ post });
  });

  return app;
}
