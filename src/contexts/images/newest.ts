/** Visible images, newest first, a page at a time: what a warm start of the image cache loads. */
import { and, desc, eq, lt } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { images } from '../../db/schema/index.js';

/**
 * The ids of up to `limit` images not hidden from users, in descending id order (newest first),
 * below `before` (from the newest when null): one backward scan of the primary key a page.
 */
export async function newestImageIds(db: Database, before: number | null, limit: number): Promise<number[]> {
  const visible = eq(images.hiddenFromUsers, false);
  const rows = await db
    .select({ id: images.id })
    .from(images)
    .where(before === null ? visible : and(visible, lt(images.id, before)))
    .orderBy(desc(images.id))
    .limit(limit);
  return rows.map((r) => r.id);
}
