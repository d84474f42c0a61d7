/** Forum posts by id, rendered (search routes call `renderPosts` with their hit ids). */
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { forums, posts, topics } from '../../db/schema/index.js';
import type { AppDeps } from '../context.js';

import { postView, type PostJson } from '../views/post.js';

import { loadAuthors } from './authors.js';
import type { ForumRow, PostRow, TopicRow } from '../../contexts/forums/types.js';

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

export async function renderPostRows(deps: AppDeps, rows: readonly { post: PostRow; topicHidden: boolean }[]): Promise<(PostJson | null)[]> {
  const authors = await loadAuthors(deps.db, rows.map((r) => r.post.userId));
  return rows.map(({ post, topicHidden }) =>
    postView(deps.config, { post, topicHidden, user: post.userId === null ? null : (authors.get(post.userId) ?? null) }),
  );
}

/** In the order of `ids`; missing ids are dropped, destroyed posts are null entries. */
export async function renderPosts(deps: AppDeps, ids: readonly number[]): Promise<(PostJson | null)[]> {
  const data = await loadPosts(deps.db, ids);
  const rows = ids.flatMap((id) => {
    const d = data.get(id);
    return d ? [{ post: d.post, topicHidden: d.topic.hiddenFromUsers }] : [];
  });
  return renderPostRows(deps, rows);
}
