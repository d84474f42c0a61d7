/** The forum object (spec "Forum response"). */
import type { ForumRow } from '../../contexts/forums/types.js';

export interface ForumJson {
  name: string;
  short_name: string;
  description: string;
  topic_count: number;
  post_count: number;
}

export function forumView(forum: ForumRow): ForumJson {
  return {
    name: forum.name,
    short_name: forum.shortName,
    description: forum.description,
    topic_count: forum.topicCount,
    post_count: forum.postCount,
  };
}
