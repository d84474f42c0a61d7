/**
 * The forum routes (reference §5.6). Only forums with access level `normal` exist for the API;
 * hidden topics and destroyed posts are never shown.
 *
 * Choices beyond the reference:
 * - an unknown or restricted forum is 404 on every route, the topic list included (the
 *   reference answers that one with an empty 200 list);
 * - pages past the end are empty with the true `total` (see middleware/paging.ts).
 */
import { and, asc, count, desc, eq, gte, lt } from 'drizzle-orm';
import { Hono } from 'hono';
import type { z } from 'zod';
import { forums, posts, topics } from '../../db/schema/index.js';
import type { AppContext, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { loadAuthors } from '../loaders/authors.js';
import { renderPostRows } from '../loaders/posts.js';
import { cacheFor } from '../middleware/cache.js';
import { toPaging } from '../middleware/paging.js';
import { INT32_MAX } from '../schemas/common.js';
import type { ForumListResponse, ForumResponse, TopicListResponse, TopicResponse } from '../schemas/envelopes.js';
import { routeQuery } from '../schemas/params.js';
import { validPath, validQuery } from '../validate.js';
import { forumView, type ForumRow } from '../views/forum.js';
import { topicView, type TopicRow } from '../views/topic.js';

const normalForum = eq(forums.accessLevel, 'normal');

async function findForum(c: AppContext, shortName: string): Promise<ForumRow | undefined> {
  const rows = await c.get('deps').db.select().from(forums).where(and(eq(forums.shortName, shortName), normalForum)).limit(1);
  return rows[0];
}

async function findTopic(c: AppContext, shortName: string, slug: string): Promise<TopicRow | undefined> {
  const forum = await findForum(c, shortName);
  if (!forum) return undefined;
  const rows = await c
    .get('deps')
    .db.select()
    .from(topics)
    .where(and(eq(topics.forumId, forum.id), eq(topics.slug, slug), eq(topics.hiddenFromUsers, false)))
    .limit(1);
  return rows[0];
}

export function forumRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/forums', validQuery(routeQuery.paged), async (c) => {
    const { db } = c.get('deps');
    const { perPage, offset } = toPaging(c.req.valid('query'));
    const [rows, totals] = await Promise.all([
      db.select().from(forums).where(normalForum).orderBy(asc(forums.name), asc(forums.id)).limit(perPage).offset(offset),
      db.select({ n: count() }).from(forums).where(normalForum),
    ]);
    cacheFor(c, 300);
    return c.json({ forums: rows.map(forumView), total: totals[0]?.n ?? 0 } satisfies z.output<typeof ForumListResponse>);
  });

  app.get('/forums/:short_name', validPath('short_name'), async (c) => {
    const forum = await findForum(c, c.req.valid('param').short_name);
    if (!forum) return notFound(c);
    cacheFor(c, 300);
    return c.json({ forum: forumView(forum) } satisfies z.output<typeof ForumResponse>);
  });

  /** Sticky topics first, then by last reply, newest first. */
  app.get('/forums/:short_name/topics', validPath('short_name'), validQuery(routeQuery.paged), async (c) => {
    const forum = await findForum(c, c.req.valid('param').short_name);
    if (!forum) return notFound(c);
    const deps = c.get('deps');
    const { perPage, offset } = toPaging(c.req.valid('query'));
    const visible = and(eq(topics.forumId, forum.id), eq(topics.hiddenFromUsers, false));
    const [rows, totals] = await Promise.all([
      deps.db
        .select()
        .from(topics)
        .where(visible)
        .orderBy(desc(topics.sticky), desc(topics.lastRepliedToAt), desc(topics.id))
        .limit(perPage)
        .offset(offset),
      deps.db.select({ n: count() }).from(topics).where(visible),
    ]);
    const authors = await loadAuthors(deps.db, rows.map((t) => t.userId));
    const list = rows.map((t) => topicView(deps.config, t, t.userId === null ? null : (authors.get(t.userId) ?? null)));
    cacheFor(c, 60);
    return c.json({ topics: list, total: totals[0]?.n ?? 0 } satisfies z.output<typeof TopicListResponse>);
  });

  app.get('/forums/:short_name/topics/:topic_slug', validPath('short_name', 'topic_slug'), async (c) => {
    const { short_name, topic_slug } = c.req.valid('param');
    const topic = await findTopic(c, short_name, topic_slug);
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
    const topic = await findTopic(c, short_name, topic_slug);
    if (!topic) return notFound(c);
    const deps = c.get('deps');
    const { perPage, offset } = toPaging(c.req.valid('query'));
    // Positions are int4: a window beyond that range is empty (and must not reach the query).
    const rows =
      offset > INT32_MAX
        ? []
        : await deps.db
            .select()
            .from(posts)
            .where(
              and(
                eq(posts.topicId, topic.id),
                eq(posts.destroyedContent, false),
                gte(posts.topicPosition, offset),
                lt(posts.topicPosition, Math.min(offset + perPage, INT32_MAX)),
              ),
            )
            .orderBy(asc(posts.topicPosition), asc(posts.id));
    const list = await renderPostRows(deps, rows.map((post) => ({ post, topicHidden: false })));
    cacheFor(c, 60);
    return c.json({ posts: list, total: topic.postCount });
  });

  app.get('/forums/:short_name/topics/:topic_slug/posts/:post_id', validPath('short_name', 'topic_slug', 'post_id'), async (c) => {
    const { short_name, topic_slug, post_id: id } = c.req.valid('param');
    const topic = await findTopic(c, short_name, topic_slug);
    if (!topic) return notFound(c);
    const deps = c.get('deps');
    const rows = await deps.db
      .select()
      .from(posts)
      .where(and(eq(posts.id, id), eq(posts.topicId, topic.id), eq(posts.destroyedContent, false)))
      .limit(1);
    const row = rows[0];
    if (!row) return notFound(c);
    const [post] = await renderPostRows(deps, [{ post: row, topicHidden: false }]);
    if (!post) return notFound(c);
    cacheFor(c, 60);
    return c.json({ post });
  });

  return app;
}
