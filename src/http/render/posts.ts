/** Forum posts rendered (search routes call `renderPosts` with their hit ids; forum routes `renderPostRows`). */
import { loadPosts } from '../../contexts/forums/posts.js';
import type { PostRow } from '../../contexts/forums/types.js';
import { loadAuthors } from '../../contexts/users/authors.js';
import type { RenderDeps } from './deps.js';
import { postView, type PostJson } from '../../api/views/post.js';

export async function renderPostRows(deps: RenderDeps, rows: readonly { post: PostRow; topicHidden: boolean }[]): Promise<(PostJson | null)[]> {
  const authors = await loadAuthors(deps.db, rows.map((r) => r.post.userId));
  return rows.map(({ post, topicHidden }) =>
    postView(deps.config, { message: post, placeHidden: topicHidden, user: post.userId === null ? null : (authors.get(post.userId) ?? null) }),
  );
}

/** In the order of `ids`; missing ids are dropped, destroyed posts are null entries. */
export async function renderPosts(deps: RenderDeps, ids: readonly number[]): Promise<(PostJson | null)[]> {
  const data = await loadPosts(deps.db, ids);
  const rows = ids.flatMap((id) => {
    const d = data.get(id);
    return d ? [{ post: d.post, topicHidden: d.topic.hiddenFromUsers }] : [];
  });
  return renderPostRows(deps, rows);
}
