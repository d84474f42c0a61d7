/**
 * The comment object (spec "Comment response", reference §5.5).
 * - destroyed: null (single-comment routes answer 404 before rendering);
 * - on a hidden image: everything but the ids withheld (routes answer 403 before rendering);
 * - hidden comment: author and avatar kept, `body`, `edited_at`, `edit_reason` null;
 * - otherwise all fields. `avatar` is always a string.
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { messageFields } from './message.js';
import type { Comment, WithheldComment } from '../schemas/resources.js';
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
  return {
    id: comment.id,
    image_id: comment.imageId,
    ...messageFields(config, comment, { objectId: comment.imageId, hidden: imageHidden }, user),
  };
}
