/**
 * The forum post object (spec "Post response", reference §5.6): like a comment without
 * `image_id`, and without topic or forum fields. The anonymous name is stable per topic.
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { messageFields } from './message.js';
import type { Post, WithheldPost } from '../schemas/resources.js';
import type { PostRow } from '../../contexts/forums/types.js';
import type { AuthorUser } from '../../contexts/users/types.js';

export interface PostViewInput {
  post: PostRow;
  /** Whether the post's topic is hidden from users. */
  topicHidden: boolean;
  user: AuthorUser | null;
}

/** A visible post, or one of a hidden topic with everything but the id withheld. */
export type PostJson = z.output<typeof Post> | z.output<typeof WithheldPost>;

export function postView(
  config: Pick<Config, 'cdnUrl' | 'anonymousNameSalt'>,
  { post, topicHidden, user }: PostViewInput,
): PostJson | null {
  if (post.destroyedContent) return null;
  return {
    id: post.id,
    ...messageFields(config, post, { objectId: post.topicId, hidden: topicHidden }, user),
  };
}
