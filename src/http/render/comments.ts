/** Comments by id, rendered (search routes call `renderCommentJson` with their hit ids). */
import { loadComments } from '../../contexts/comments/load.js';
import type { CommentRow } from '../../contexts/comments/types.js';
import { loadAuthors } from '../../contexts/users/authors.js';
import type { AppDeps } from '../context.js';
import { liveCaches } from '../../caches/read-caches.js';
import { commentView, type CommentJson } from '../views/comment.js';
import { cachedRecordJson } from '../../caches/record-json-cache.js';

/** The comments of `ids` that exist, by id, with their JSON (null for a destroyed one). */
async function commentViews(deps: AppDeps, ids: readonly number[]): Promise<Map<number, { comment: CommentRow; view: CommentJson | null }>> {
  const data = await loadComments(deps.db, ids);
  const authors = await loadAuthors(deps.db, [...data.values()].map((d) => d.comment.userId));
  const views = new Map<number, { comment: CommentRow; view: CommentJson | null }>();
  for (const [id, { comment, imageHidden }] of data) {
    const user = comment.userId === null ? null : (authors.get(comment.userId) ?? null);
    views.set(id, { comment, view: commentView(deps.config, { message: comment, placeHidden: imageHidden, user }) });
  }
  return views;
}

/** In the order of `ids`; missing ids are dropped, destroyed comments are null entries. */
export async function renderComments(deps: AppDeps, ids: readonly number[]): Promise<(CommentJson | null)[]> {
  const views = await commentViews(deps, ids);
  return ids.flatMap((id) => {
    const rendered = views.get(id);
    return rendered === undefined ? [] : [rendered.view];
  });
}

/**
 * The same as `renderComments`, as JSON texts, through the app's cache of rendered comments. An
 * entry watches the comment (`comments:id`), its image (`images:id`: hiding it withholds the
 * comment) and its author (`user:id`: a rename, a new avatar).
 */
export async function renderCommentJson(deps: AppDeps, ids: readonly number[]): Promise<string[]> {
  return cachedRecordJson(liveCaches(deps.caches)?.comments ?? null, ids, async (missing) =>
    [...(await commentViews(deps, missing)).values()].map(({ comment, view }) => ({
      id: comment.id,
      json: JSON.stringify(view),
      watches: [`comments:${comment.id}`, `images:${comment.imageId}`, ...(comment.userId === null ? [] : [`user:${comment.userId}`])],
    })),
  );
}
