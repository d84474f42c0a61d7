/**
 * Which images are hidden from users (merged or deleted): their files are never served and the
 * firehose tells nothing of their edits.
 */
import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { INT32_MAX } from '../../db/int32.js';
import { images } from '../../db/schema/index.js';

const storable = (id: number) => Number.isSafeInteger(id) && id >= 1 && id <= INT32_MAX;

/** The ids among `ids` of images that exist and are merged or deleted. */
export async function hiddenImageIds(db: Database, ids: readonly number[]): Promise<Set<number>> {
  const wanted = [...new Set(ids.filter(storable))];
  if (wanted.length === 0) return new Set();
  const rows = await db
    .select({ id: images.id })
    .from(images)
    .where(and(inArray(images.id, wanted), eq(images.hiddenFromUsers, true)));
  return new Set(rows.map((r) => r.id));
}

/** The ids of every image merged or deleted (few: a board hides a small share of its images). */
export async function allHiddenImageIds(db: Database): Promise<number[]> {
  const rows = await db.select({ id: images.id }).from(images).where(eq(images.hiddenFromUsers, true));
  return rows.map((r) => r.id);
}

/** True when the image exists and is merged or deleted; an id no image can have is not hidden. */
export async function isImageHidden(db: Database, id: number): Promise<boolean> {
  if (!storable(id)) return false;
  const [row] = await db.select({ hidden: images.hiddenFromUsers }).from(images).where(eq(images.id, id));
  return row?.hidden === true;
}
