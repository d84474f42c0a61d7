/**
 * Payloads of the firehose's events, rendered as the API renders them for an anonymous caller
 * (the Default filter, no user): the show response for images, `{comment}`, `{post, topic, forum}`
 * for posts of forums open to everyone. An event whose record the API would not show (a destroyed
 * comment, a post of a restricted forum, an image deleted since) is dropped, and so is every event
 * of an image hidden from users (merged or deleted) but `image:merge`, which carries its stub and
 * its target: nothing of its tags, sources or description is told.
 */
import { findDefaultFilter } from '../../contexts/filters/load.js';
import { hiddenImageIds } from '../../contexts/images/hidden.js';
import { loadPosts } from '../../contexts/forums/posts.js';
import { loadAuthors } from '../../contexts/users/authors.js';
import type { RenderDeps } from '../render/deps.js';
import { renderComments } from '../render/comments.js';
import { renderImage } from '../render/images.js';
import { renderPostRows } from '../render/posts.js';
import { forumView } from '../../api/views/forum.js';
import { topicView } from '../../api/views/topic.js';
import type { FirehosePlan } from './firehose-events.js';
import type { FirehoseEvent } from './types.js';


export async function renderFirehose(deps: RenderDeps, plans: readonly FirehosePlan[]): Promise<FirehoseEvent[]> {
  if (plans.length === 0) return [];
  const filter = (await findDefaultFilter(deps.db)) ?? null;
  const image = (id: number) => renderImage(deps, id, { filter, user: null });
  const hidden = await hiddenImageIds(deps.db, plans.flatMap(imagesTold));
  const out: FirehoseEvent[] = [];
  for (const told of plans) {
    const plan = withoutHidden(told, hidden);
    if (plan === null) continue;
    const payload = await payloadOf(deps, plan, image);
    if (payload !== null) out.push({ event: plan.event, payload });
  }
  return out;
}

/** The images whose content an event tells (a merge tells only the stub of the merged one). */
function imagesTold(plan: FirehosePlan): number[] {
  switch (plan.event) {
    case 'image:batch_tag_update':
      return plan.imageIds;
    case 'image:merge':
    case 'comment:create':
    case 'comment:update':
    case 'post:create':
      return [];
    default:
      return [plan.imageId];
  }
}

/** The event without the hidden images it would tell of; null when nothing is left to tell. */
function withoutHidden(plan: FirehosePlan, hidden: ReadonlySet<number>): FirehosePlan | null {
  if (hidden.size === 0) return plan;
  if (plan.event === 'image:batch_tag_update') {
    const imageIds = plan.imageIds.filter((id) => !hidden.has(id));
    return imageIds.length === 0 ? null : { ...plan, imageIds };
  }
  return imagesTold(plan).some((id) => hidden.has(id)) ? null : plan;
}

async function payloadOf(deps: RenderDeps, plan: FirehosePlan, image: (id: number) => Promise<unknown>): Promise<unknown> {
  switch (plan.event) {
    case 'image:create':
    case 'image:update': {
      const json = await image(plan.imageId);
      return json === undefined ? null : { image: json, interactions: [] };
    }
    case 'image:process':
      return { image_id: plan.imageId };
    case 'image:tag_update':
    case 'image:source_update':
    case 'image:description_update':
      return { image_id: plan.imageId, added: plan.added, removed: plan.removed };
    case 'image:batch_tag_update':
      return { image_ids: plan.imageIds, added: plan.added, removed: plan.removed };
    case 'image:merge': {
      const [merged, target] = await Promise.all([image(plan.imageId), image(plan.duplicateOf)]);
      return merged === undefined || target === undefined ? null : { image: merged, duplicate_of_image: target };
    }
    case 'comment:create':
    case 'comment:update': {
      const [comment] = await renderComments(deps, [plan.commentId]);
      return comment ? { comment } : null;
    }
    case 'post:create':
      return postPayload(deps, plan.postId);
  }
}

async function postPayload(deps: RenderDeps, postId: number): Promise<unknown> {
  const data = (await loadPosts(deps.db, [postId])).get(postId);
  if (data === undefined || data.forum.accessLevel !== 'normal' || data.topic.hiddenFromUsers) return null;
  const [post] = await renderPostRows(deps, [{ post: data.post, topicHidden: false }]);
  if (!post) return null;
  const topicAuthor = data.topic.userId === null ? null : ((await loadAuthors(deps.db, [data.topic.userId])).get(data.topic.userId) ?? null);
  return { post, topic: topicView(deps.config, data.topic, topicAuthor), forum: forumView(data.forum) };
}
