/** The forum object (spec "Forum response"). */
import type { ForumRow } from '../../contexts/forums/types.js';
import type { z } from 'zod';
import type { Forum } from '../schemas/resources.js';

export type ForumJson = z.output<typeof Forum>;

export function forumView(forum: ForumRow): ForumJson {
  return {
    name: forum.name,
    short_name: forum.shortName,
    description: forum.description,
    topic_count: forum.topicCount,
    post_count: forum.postCount,
  };
}
