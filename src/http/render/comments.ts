/** Comments by id, rendered (search routes call `renderComments` with their hit ids). */
import { loadComments } from '../../contexts/comments/load.js';
import { loadAuthors } from '../../contexts/users/authors.js';
import type { AppDeps } from '../context.js';
import { commentView, type CommentJson } from '../views/comment.js';

/** In the order of `ids`; missing ids are dropped, destroyed comments are null entries. */
export async function renderComments(deps: AppDeps, ids: readonly number[]): Promise<(CommentJson | null)[]> {
  const data = await loadComments(deps.db, ids);
  const authors = await loadAuthors(deps.db, [...data.values()].map((d) => d.comment.userId));
  const out: (CommentJson | null)[] = [];
  for (const id of ids) {
    const d = data.get(id);
    if (!d) continue;
    const user = d.comment.userId === null ? null : (authors.get(d.comment.userId) ?? null);
    out.push(commentView(deps.config, { message: d.comment, placeHidden: d.imageHidden, user }));
  }
  return out;
}
