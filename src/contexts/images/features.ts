import { eq } from 'drizzle-orm';
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
