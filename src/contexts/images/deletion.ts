/**
 * Deleting an image for a rule violation, as a moderator does, and restoring it. A deleted image
 * stays in the database with its reason: every view then gives the reference's stub (`id`, the
 * times, `deletion_reason`, `hidden_from_users: true`), no search finds it and none of its files
 * is served; the change log carries the change to the indices, the caches and the live views of
 * every process. Restoring shows it again as it was. A merged image is hidden as a duplicate
 * (`duplicates.ts`), not deleted: restoring does not undo a merge.
 */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { images } from '../../db/schema/index.js';
import { AdminError } from '../errors.js';

/** The longest deletion reason kept (the reference's form takes a line of text). */
export const MAX_DELETION_REASON = 1_000;

/** Hide image `id` from users with `reason`; refused when there is no such image or it is already hidden. */
export async function deleteImage(db: Database, id: number, reason: string): Promise<void> {
  const text = reason.trim();
  if (text === '') throw new AdminError('a deletion needs a reason: it is shown in place of the image');
  if (text.length > MAX_DELETION_REASON) throw new AdminError(`the reason is longer than ${MAX_DELETION_REASON} characters`);
  await db.transaction(async (tx) => {
    const [row] = await tx.select({ hidden: images.hiddenFromUsers, duplicateId: images.duplicateId }).from(images).where(eq(images.id, id)).for('update');
    if (!row) throw new AdminError(`no image ${id}`);
    if (row.duplicateId !== null) throw new AdminError(`image ${id} is merged into image ${row.duplicateId}`);
    if (row.hidden) throw new AdminError(`image ${id} is already deleted`);
    await tx.update(images).set({ hiddenFromUsers: true, deletionReason: text, updatedAt: sql`now()` }).where(eq(images.id, id));
  });
}

/** Show a deleted image again; refused when there is no such image, it is not deleted, or it is merged. */
export async function restoreImage(db: Database, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    const [row] = await tx.select({ hidden: images.hiddenFromUsers, duplicateId: images.duplicateId }).from(images).where(eq(images.id, id)).for('update');
    if (!row) throw new AdminError(`no image ${id}`);
    if (row.duplicateId !== null) throw new AdminError(`image ${id} is merged into image ${row.duplicateId}, not deleted`);
    if (!row.hidden) throw new AdminError(`image ${id} is not deleted`);
    await tx.update(images).set({ hiddenFromUsers: false, deletionReason: null, updatedAt: sql`now()` }).where(eq(images.id, id));
  });
}
