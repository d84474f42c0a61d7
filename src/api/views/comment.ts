/**
 * The comment object (spec "Comment response", reference §5.5).
 * - destroyed: null (single-comment routes answer 404 before rendering);
 * - on a hidden image: everything but the ids withheld (routes answer 403 before rendering);
 * - hidden comment: author and avatar kept, `body`, `edited_at`, `edit_reason` null;
 * - otherwise all fields. `avatar` is always a string.
 */
import type { z } from 'zod';
import { messageFields, type MessageViewConfig, type MessageViewInput } from './message.js';
import type { Comment, WithheldComment } from '../schemas/resources.js';
import type { CommentRow } from '../../contexts/comments/types.js';

/** A visible comment, or one on a hidden image with everything but the ids withheld. */
export type CommentJson = z.output<typeof Comment> | z.output<typeof WithheldComment>;

/** `placeHidden`: whether the commented image is hidden from users. */
export function commentView(config: MessageViewConfig, { message: comment, placeHidden, user }: MessageViewInput<CommentRow>): CommentJson | null {
  if (comment.destroyedContent) return null;
  return {
    id: comment.id,
    image_id: comment.imageId,
    ...messageFields(config, comment, { objectId: comment.imageId, hidden: placeHidden }, user),
  };
}
