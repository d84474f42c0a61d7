/**
 * The forum post object (spec "Post response", reference §5.6): like a comment without
 * `image_id`, and without topic or forum fields. The anonymous name is stable per topic.
 */
import type { z } from 'zod';
import { messageFields, type MessageViewConfig, type MessageViewInput } from './message.js';
import type { Post, WithheldPost } from '../schemas/resources.js';
import type { PostRow } from '../../contexts/forums/types.js';

/** A visible post, or one of a hidden topic with everything but the id withheld. */
export type PostJson = z.output<typeof Post> | z.output<typeof WithheldPost>;

/** `placeHidden`: whether the post's topic is hidden from users. */
export function postView(config: MessageViewConfig, { message: post, placeHidden, user }: MessageViewInput<PostRow>): PostJson | null {
  if (post.destroyedContent) return null;
  return {
    id: post.id,
    ...messageFields(config, post, { objectId: post.topicId, hidden: placeHidden }, user),
  };
}
