/**
 * The firehose's events (the reference's `firehose` channel) planned from one transaction of the
 * change log: which events, in which order, with what the log alone tells (tag names added and
 * removed, old and new description, sources). Pure; `firehose-render.ts` turns a plan into the
 * payloads the API would render.
 *
 * - `image:create` for a new image (its first tags and sources are part of it: no tag_update);
 * - `image:tag_update` `{image_id, added, removed}`, or for several images with the same change in
 *   one transaction `image:batch_tag_update` `{image_ids, added, removed}`;
 * - `image:description_update` `{image_id, added: new text, removed: old text}`;
 * - `image:source_update` `{image_id, added, removed}`: flat lists of URLs (the reference nests
 *   them once more, `[[urls]]`; Tagwise sends the lists themselves);
 * - `image:update` after any of those three (the show response);
 * - `image:process` when thumbnails are done, `image:merge` when an image became a duplicate;
 * - `comment:create`, `comment:update`, and `post:create`.
 */
import type { ChangeGroup, ChangeRow } from '../../contexts/changes/types.js';

export type FirehosePlan =
  | { event: 'image:create' | 'image:update' | 'image:process'; imageId: number }
  | { event: 'image:tag_update'; imageId: number; added: string[]; removed: string[] }
  | { event: 'image:batch_tag_update'; imageIds: number[]; added: string[]; removed: string[] }
  | { event: 'image:description_update'; imageId: number; added: string; removed: string }
  | { event: 'image:source_update'; imageId: number; added: string[]; removed: string[] }
  | { event: 'image:merge'; imageId: number; duplicateOf: number }
  | { event: 'comment:create' | 'comment:update'; commentId: number }
  | { event: 'post:create'; postId: number };

/** What one transaction did to one image. */
interface ImageChanges {
  created: boolean;
  deleted: boolean;
  processed: boolean;
  mergedInto: number | null;
  tagsAdded: string[];
  tagsRemoved: string[];
  description: { old: string; new: string } | null;
  sourcesAdded: string[];
  sourcesRemoved: string[];
}

const text = (row: ChangeRow, key: string): string => {
  const value = row.detail?.[key];
  return typeof value === 'string' ? value : '';
};

function imageChanges(rows: readonly ChangeRow[]): Map<number, ImageChanges> {
  const byImage = new Map<number, ImageChanges>();
  for (const row of rows) {
    if (row.kind !== 'image') continue;
    let c = byImage.get(row.recordId);
    if (c === undefined) {
      c = { created: false, deleted: false, processed: false, mergedInto: null, tagsAdded: [], tagsRemoved: [], description: null, sourcesAdded: [], sourcesRemoved: [] };
      byImage.set(row.recordId, c);
    }
    switch (row.change) {
      case 'created':
        c.created = true;
        break;
      case 'deleted':
        c.deleted = true;
        break;
      case 'processed':
        c.processed = true;
        break;
      case 'merged':
        c.mergedInto = Number(row.detail?.duplicate_of);
        break;
      case 'tag_added':
        c.tagsAdded.push(text(row, 'tag'));
        break;
      case 'tag_removed':
        c.tagsRemoved.push(text(row, 'tag'));
        break;
      case 'description':
        // Several edits in one transaction: the first old text and the last new one.
        c.description = { old: c.description?.old ?? text(row, 'old'), new: text(row, 'new') };
        break;
      case 'source_added':
        c.sourcesAdded.push(text(row, 'source'));
        break;
      case 'source_removed':
        c.sourcesRemoved.push(text(row, 'source'));
        break;
    }
  }
  return byImage;
}

/** A tag both removed and added again in one transaction did not change. */
function net(added: string[], removed: string[]): { added: string[]; removed: string[] } {
  const a = new Set(added.filter((n) => n !== ''));
  const r = new Set(removed.filter((n) => n !== ''));
  for (const n of [...a]) {
    if (r.has(n)) {
      a.delete(n);
      r.delete(n);
    }
  }
  return { added: [...a].sort(), removed: [...r].sort() };
}

/** The firehose events of one transaction, in the order they are sent. */
export function planFirehose(group: ChangeGroup): FirehosePlan[] {
  const plans: FirehosePlan[] = [];
  const tagUpdates: { imageId: number; added: string[]; removed: string[] }[] = [];
  const updated: number[] = [];
  for (const [imageId, c] of imageChanges(group.rows)) {
    if (c.deleted) continue;
    if (c.created) {
      plans.push({ event: 'image:create', imageId });
    } else {
      let edited = false;
      const tags = net(c.tagsAdded, c.tagsRemoved);
      if (tags.added.length + tags.removed.length > 0) {
        tagUpdates.push({ imageId, ...tags });
        edited = true;
      }
      if (c.description !== null && c.description.old !== c.description.new) {
        plans.push({ event: 'image:description_update', imageId, added: c.description.new, removed: c.description.old });
        edited = true;
      }
      const sources = net(c.sourcesAdded, c.sourcesRemoved);
      if (sources.added.length + sources.removed.length > 0) {
        plans.push({ event: 'image:source_update', imageId, ...sources });
        edited = true;
      }
      if (edited) updated.push(imageId);
    }
    if (c.processed) plans.push({ event: 'image:process', imageId });
    if (c.mergedInto !== null) plans.push({ event: 'image:merge', imageId, duplicateOf: c.mergedInto });
  }
  plans.push(...batchTagUpdates(tagUpdates));
  for (const imageId of updated) plans.push({ event: 'image:update', imageId });
  for (const row of group.rows) {
    if (row.kind === 'comment' && (row.change === 'created' || row.change === 'updated')) {
      plans.push({ event: row.change === 'created' ? 'comment:create' : 'comment:update', commentId: row.recordId });
    } else if (row.kind === 'post' && row.change === 'created') {
      plans.push({ event: 'post:create', postId: row.recordId });
    }
  }
  return plans;
}

/** One image's change is a tag_update; the same change to several images is one batch_tag_update. */
function batchTagUpdates(updates: { imageId: number; added: string[]; removed: string[] }[]): FirehosePlan[] {
  const bySignature = new Map<string, { imageIds: number[]; added: string[]; removed: string[] }>();
  for (const u of updates) {
    const signature = JSON.stringify([u.added, u.removed]);
    const batch = bySignature.get(signature);
    if (batch) batch.imageIds.push(u.imageId);
    else bySignature.set(signature, { imageIds: [u.imageId], added: u.added, removed: u.removed });
  }
  return [...bySignature.values()].map((b) =>
    b.imageIds.length === 1
      ? { event: 'image:tag_update' as const, imageId: b.imageIds[0]!, added: b.added, removed: b.removed }
      : { event: 'image:batch_tag_update' as const, imageIds: b.imageIds, added: b.added, removed: b.removed },
  );
}
