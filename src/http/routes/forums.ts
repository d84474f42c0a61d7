/**
 * The forum routes (reference §5.6). Only forums with access level `normal` exist for the API;
 * hidden topics and destroyed posts are never shown.
 *
 * Choices beyond the reference:
 * - an unknown or restricted forum is 404 on every route, the topic list included (the
 *   reference answers that one with an empty 200 list);
 * - pages past the end are empty with the true `total` (see src/api/paging.ts).
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import { findForum, listForums } from '../../contexts/forums/forums.js';
import { findTopicPost, topicPostsInWindow } from '../../contexts/forums/posts.js';
import { findTopic, listTopics } from '../../contexts/forums/topics.js';
import type { TopicRow } from '../../contexts/forums/types.js';
import { loadAuthors } from '../../contexts/users/authors.js';
import type { AppContext, AppEnv } from '../env/context.js';
import { notFound } from '../answers/errors.js';
import { renderPostRows } from '../render/posts.js';
import { cacheFor } from '../middleware/cache.js';
import { toPaging } from '../../api/paging.js';
import type { ForumListResponse, ForumResponse, TopicListResponse, TopicResponse } from '../../api/schemas/envelopes.js';
import { routeQuery } from '../../api/schemas/params.js';
import { validPath, validQuery } from '../request/validate.js';
import { forumView } from '../../api/views/forum.js';
import { topicView } from '../../api/views/topic.js';

async function topicOf(c: AppContext, shortName: string, slug: string): Promise<TopicRow | undefined> {
  const forum = await findForum(c.get('deps').db, shortName);
  if (!forum) return undefined;
  return findTopic(c.get('deps').db, forum.id, slug);
}

export function forumRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/forums', validQuery(routeQuery.paged), async (c) => {
    const { rows, total } = await listForums(c.get('deps').db, toPaging(c.req.valid('query')));
    cacheFor(c, 300);
    return c.json({ forums: rows.map(forumView), total } satisfies z.output<typeof ForumListResponse>);
  });

  app.get('/forums/:short_name', validPath('short_name'), async (c) => {
    const forum = await findForum(c.get('deps').db, c.req.valid('param').short_name);
    if (!forum) return notFound(c);
    cacheFor(c, 300);
    return c.json({ forum: forumView(forum) } satisfies z.output<typeof ForumResponse>);
  });

  /** Sticky topics first, then by last reply, newest first. */
  app.get('/forums/:short_name/topics', validPath('short_name'), validQuery(routeQuery.paged), async (c) => {
    const deps = c.get('deps');
    const forum = await findForum(deps.db, c.req.valid('param').short_name);
    if (!forum) return notFound(c);
    const { rows, total } = await listTopics(deps.db, forum.id, toPaging(c.req.valid('query')));
    const authors = await loadAuthors(deps.db, rows.map((t) => t.userId));
    const list = rows.map((t) => topicView(deps.config, t, t.userId === null ? null : (authors.get(t.userId) ?? null)));
    cacheFor(c, 60);
    return c.json({ topics: list, total } satisfies z.output<typeof TopicListResponse>);
  });

  app.get('/forums/:short_name/topics/:topic_slug', validPath('short_name', 'topic_slug'), async (c) => {
    const { short_name, topic_slug } = c.req.valid('param');
    const topic = await topicOf(c, short_name, topic_slug);
    if (!topic) return notFound(c);
    const deps = c.get('deps');
    const authors = await loadAuthors(deps.db, [topic.userId]);
    cacheFor(c, 60);
    const author = topic.userId === null ? null : (authors.get(topic.userId) ?? null);
    return c.json({ topic: topicView(deps.config, topic, author) } satisfies z.output<typeof TopicResponse>);
  });

  /**
   * Posts whose position falls in the page's window [perPage·(page−1), perPage·page), by
   * position; destroyed posts are dropped (so a page may be short); `total` is the topic's count.
   */
  app.get('/forums/:short_name/topics/:topic_slug/posts', validPath('short_name', 'topic_slug'), validQuery(routeQuery.paged), async (c) => {
    const { short_name, topic_slug } = c.req.valid('param');
    const topic = await topicOf(c, short_name, topic_slug);
    if (!topic) return notFound(c);
    const deps = c.get('deps');
    const rows = await topicPostsInWindow(deps.db, topic.id, toPaging(c.req.valid('query')));
    const list = await renderPostRows(deps, rows.map((post) => ({ post, topicHidden: false })));
    cacheFor(c, 60);
    return c.json({ posts: list, total: topic.postCount });
  });

  app.get('/forums/:short_name/topics/:topic_slug/posts/:post_id', validPath('short_name', 'topic_slug', 'post_id'), async (c) => {
    const { short_name, topic_slug, post_id: id } = c.req.valid('param');
    const topic = await topicOf(c, short_name, topic_slug);
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
