/** A user's recent uploads, which the daily upload cap counts. */
import { and, count, eq, gt, min, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { images } from '../../db/schema/index.js';

/** How many images `userId` uploaded in the last 24 hours, and when the oldest of them was. */
export async function uploadsInLastDay(db: Database, userId: number): Promise<{ count: number; oldest: Date | null }> {
  const [row] = await db
    .select({ n: count(), oldest: min(images.createdAt) })
    .from(images)
    .where(and(eq(images.userId, userId), gt(images.createdAt, sql`now() - interval '1 day'`)));
  return { count: row?.n ?? 0, oldest: row?.oldest ? new Date(row.oldest) : null };
}
