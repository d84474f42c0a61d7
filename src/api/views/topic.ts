/** The topic object (spec "Topic response", reference §5.6). */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { attribute } from './attribution.js';
import type { Topic } from '../schemas/resources.js';
import { formatTime } from './time.js';
import type { TopicRow } from '../../contexts/forums/types.js';
import type { AuthorUser } from '../../contexts/users/types.js';

export type TopicJson = z.output<typeof Topic>;

export function topicView(
  config: Pick<Config, 'cdnUrl' | 'anonymousNameSalt'>,
  topic: TopicRow,
  user: AuthorUser | null,
): TopicJson {
  const who = attribute(config, { objectId: topic.id, userId: topic.userId, anonymous: topic.anonymous, user });
  return {
    slug: topic.slug,
    title: topic.title,
    post_count: topic.postCount,
    view_count: topic.viewCount,
    sticky: topic.sticky,
    last_replied_to_at: formatTime(topic.lastRepliedToAt),
    locked: topic.lockedAt !== null,
    user_id: who.userId,
    author: who.author,
  };
}
