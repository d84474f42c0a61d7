/**
 * The comment object (spec "Comment response", reference §5.5).
 * - destroyed: null (single-comment routes answer 404 before rendering);
 * - on a hidden image: everything but the ids withheld (routes answer 403 before rendering);
 * - hidden comment: author and avatar kept, `body`, `edited_at`, `edit_reason` null;
 * - otherwise all fields. `avatar` is always a string.
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { attribute, withheldAvatar } from './attribution.js';
import type { Comment, WithheldComment } from '../schemas/resources.js';
import { formatTime } from './time.js';
import type { CommentRow } from '../../contexts/comments/types.js';
import type { AuthorUser } from '../../contexts/users/types.js';

export interface CommentViewInput {
  comment: CommentRow;
  /** Whether the commented image is hidden from users. */
  imageHidden: boolean;
  /** The author's account, if any. */
  user: AuthorUser | null;
}

/** A visible comment, or one on a hidden image with everything but the ids withheld. */
export type CommentJson = z.output<typeof Comment> | z.output<typeof WithheldComment>;

export function commentView(
  config: Pick<Config, 'cdnUrl' | 'anonymousNameSalt'>,
  { comment, imageHidden, user }: CommentViewInput,
): CommentJson | null {
  if (comment.destroyedContent) return null;
  if (imageHidden) {
    return {
      id: comment.id,
      image_id: comment.imageId,
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
    objectId: comment.imageId,
    userId: comment.userId,
    anonymous: comment.anonymous,
    fingerprint: comment.fingerprint,
    ip: comment.ip,
    user,
  });
  const hidden = comment.hiddenFromUsers;
  return {
    id: comment.id,
    image_id: comment.imageId,
    user_id: who.userId,
    author: who.author,
    avatar: who.avatar,
    body: hidden ? null : comment.body,
    created_at: formatTime(comment.createdAt),
    updated_at: formatTime(comment.updatedAt),
    edited_at: hidden ? null : formatTime(comment.editedAt),
    edit_reason: hidden ? null : comment.editReason,
  };
}
