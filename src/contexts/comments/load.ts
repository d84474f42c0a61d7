/** Comments by id, each with whether its image is hidden (which withholds the comment). */
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { comments, images } from '../../db/schema/index.js';
import type { CommentRow } from './types.js';

export interface CommentData {
  comment: CommentRow;
  imageHidden: boolean;
}

export async function loadComments(db: Database, ids: readonly number[]): Promise<Map<number, CommentData>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db
    .select({ comment: comments, imageHidden: images.hiddenFromUsers })
    .from(comments)
    .innerJoin(images, eq(images.id, comments.imageId))
    .where(inArray(comments.id, unique));
  return new Map(rows.map((r) => [r.comment.id, r]));
}
