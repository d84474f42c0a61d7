/**
 * An operator's tag change to one or many images at once (`npm run admin -- tags`): tags are
 * added (created when new, aliases followed) and removed in one transaction, so the change log
 * records it as one change, which the firehose sends as `image:batch_tag_update` when it touches
 * several images.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { cleanTagName } from '../../../grammar/index.js';
import type { Database } from '../../db/client.js';
import { imageTaggings, images } from '../../db/schema/index.js';
import { AdminError } from '../errors.js';
import { resolveTagList } from '../filters/system-filters.js';
import { getOrCreateTags } from '../tags/get-or-create.js';

export interface TagChange {
  /** Comma-separated tag names. */
  add?: string;
  remove?: string;
}

/** Apply `change` to every image of `imageIds`; returns how many taggings were added and removed. */
export async function retagImages(db: Database, imageIds: readonly number[], change: TagChange): Promise<{ added: number; removed: number }> {
  const ids = [...new Set(imageIds)];
  const found = await db.select({ id: images.id }).from(images).where(inArray(images.id, ids));
  const missing = ids.filter((id) => !found.some((f) => f.id === id));
  if (missing.length > 0) throw new AdminError(`no image with id ${missing.join(', ')}`);
  const removeIds = change.remove === undefined ? [] : await resolveTagList(db, change.remove);
  const addNames = (change.add ?? '').split(',').map(cleanTagName).filter((n) => n !== '');
  return db.transaction(async (tx) => {
    let removed = 0;
    if (removeIds.length > 0) {
      const gone = await tx
        .delete(imageTaggings)
        .where(and(inArray(imageTaggings.imageId, ids), inArray(imageTaggings.tagId, removeIds)))
        .returning({ imageId: imageTaggings.imageId });
      removed = gone.length;
    }
    let added = 0;
    const tags = await getOrCreateTags(tx, addNames);
    for (const imageId of ids) {
      const [{ next } = { next: 0 }] = await tx
        .select({ next: sql<number>`coalesce(max(${imageTaggings.position}) + 1, 0)::int` })
        .from(imageTaggings)
        .where(eq(imageTaggings.imageId, imageId));
      const rows = tags.map((t, i) => ({ imageId, tagId: t.id, position: next + i }));
      if (rows.length > 0) added += (await tx.insert(imageTaggings).values(rows).onConflictDoNothing().returning({ tagId: imageTaggings.tagId })).length;
    }
    if (added + removed > 0) await tx.update(images).set({ updatedAt: new Date() }).where(inArray(images.id, ids));
    return { added, removed };
  });
}
