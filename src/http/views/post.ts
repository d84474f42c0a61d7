/**
 * The forum post object (spec "Post response", reference §5.6): like a comment without
 * `image_id`, and without topic or forum fields. The anonymous name is stable per topic.
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { attribute, withheldAvatar } from './attribution.js';
import type { Post, WithheldPost } from '../schemas/resources.js';
import { formatTime } from './time.js';
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
  if (topicHidden) {
    return {
      id: post.id,
      user_id: null,
      author: null,
      avatar: withheldAvatar(),
      body: null,
      created_at: null,
      updated_at: null,
      edited_at: null,
      edit_reason: null,
    };
  }
  const who = attribute(config, {
    objectId: post.topicId,
    userId: post.userId,
    anonymous: post.anonymous,
    fingerprint: post.fingerprint,
    ip: post.ip,
    user,
  });
  const hidden = post.hiddenFromUsers;
  return {
    id: post.id,
    user_id: who.userId,
    author: who.author,
    avatar: who.avatar,
    body: hidden ? null : post.body,
    created_at: formatTime(post.createdAt),
    updated_at: formatTime(post.updatedAt),
    edited_at: hidden ? null : formatTime(post.editedAt),
    edit_reason: hidden ? null : post.editReason,
  };
}
