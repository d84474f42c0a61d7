/** The featured image: making an image the featured one, and reading which one is. */
import { desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { imageFeatures, images } from '../../db/schema/index.js';
import { AdminError } from '../errors.js';

/** Make an image the featured one (the newest `image_features` row wins). */
export async function featureImage(db: Database, imageId: number, userId: number | null = null): Promise<{ id: number }> {
  const [image] = await db
    .select({ id: images.id, hidden: images.hiddenFromUsers, approved: images.approved })
    .from(images)
    .where(eq(images.id, imageId));
  if (!image) throw new AdminError(`no image with id ${imageId}`);
  if (image.hidden) throw new AdminError(`image ${imageId} is hidden and cannot be featured`);
  if (!image.approved) throw new AdminError(`image ${imageId} is not approved and cannot be featured`);
  const [row] = await db.insert(imageFeatures).values({ imageId, userId }).returning({ id: imageFeatures.id });
  return row!;
}

/** The image of the newest feature whose image is not hidden, if any. */
export async function featuredImageId(db: Database): Promise<number | undefined> {
  const rows = await db
    .select({ imageId: imageFeatures.imageId })
    .from(imageFeatures)
    .innerJoin(images, eq(images.id, imageFeatures.imageId))
    .where(eq(images.hiddenFromUsers, false))
    .orderBy(desc(imageFeatures.createdAt), desc(imageFeatures.id))
    .limit(1);
  return rows[0]?.imageId;
}
