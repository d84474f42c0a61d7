/** Forum posts: by id with their topic and forum, and a topic's posts by position. */
import { and, asc, eq, gte, inArray, lt } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { INT32_MAX } from '../../db/int32.js';
import { forums, posts, topics } from '../../db/schema/index.js';
import type { PageWindow } from '../page.js';
import type { ForumRow, PostRow, TopicRow } from './types.js';

export interface PostData {
  post: PostRow;
  topic: TopicRow;
  forum: ForumRow;
}

export async function loadPosts(db: Database, ids: readonly number[]): Promise<Map<number, PostData>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db
    .select({ post: posts, topic: topics, forum: forums })
    .from(posts)
    .innerJoin(topics, eq(topics.id, posts.topicId))
    .innerJoin(forums, eq(forums.id, topics.forumId))
    .where(inArray(posts.id, unique));
  return new Map(rows.map((r) => [r.post.id, r]));
}

/** Whether a single post may be shown (reference §5.6): not destroyed, topic visible, forum normal. */
export function isPostShowable(d: PostData): boolean {
  return !d.post.destroyedContent && !d.topic.hiddenFromUsers && d.forum.accessLevel === 'normal';
}

/**
 * The posts of a topic whose position falls in [offset, offset + perPage), by position; destroyed
 * posts are left out (so a window may be short).
 */
export async function topicPostsInWindow(db: Database, topicId: number, { perPage, offset }: PageWindow): Promise<PostRow[]> {
  // Positions are int4: a window beyond that range is empty (and must not reach the query).
  if (offset > INT32_MAX) return [];
  return db
    .select()
    .from(posts)
    .where(
      and(
        eq(posts.topicId, topicId),
        eq(posts.destroyedContent, false),
        gte(posts.topicPosition, offset),
        lt(posts.topicPosition, Math.min(offset + perPage, INT32_MAX)),
      ),
    )
    .orderBy(asc(posts.topicPosition), asc(posts.id));
}

/** A post of a topic that is not destroyed. */
export async function findTopicPost(db: Database, topicId: number, id: number): Promise<PostRow | undefined> {
  const rows = await db
    .select()
    .from(posts)
    .where(and(eq(posts.id, id), eq(posts.topicId, topicId), eq(posts.destroyedContent, false)))
    .limit(1);
  return rows[0];
}
