/** Comments by id, rendered (search routes call `renderComments` with their hit ids). */
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { comments, images } from '../../db/schema/index.js';
import type { AppDeps } from '../context.js';
import { commentView, type CommentJson } from '../views/comment.js';
import { loadAuthors } from './authors.js';
import type { CommentRow } from '../../contexts/comments/types.js';

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

/** In the order of `ids`; missing ids are dropped, destroyed comments are null entries. */
export async function renderComments(deps: AppDeps, ids: readonly number[]): Promise<(CommentJson | null)[]> {
  const data = await loadComments(deps.db, ids);
  const authors = await loadAuthors(deps.db, [...data.values()].map((d) => d.comment.userId));
  const out: (CommentJson | null)[] = [];
  for (const id of ids) {
    const d = data.get(id);
    if (!d) continue;
    const user = d.comment.userId === null ? null : (authors.get(d.comment.userId) ?? null);
    out.push(commentView(deps.config, { comment: d.comment, imageHidden: d.imageHidden, user }));
  }
  return out;
}
