/** The featured image: making an image the featured one, and reading which one is. */
import { eq, sql } from 'drizzle-orm';
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

/**
 * The image of the newest feature whose image is not hidden, if any, and the images whose change
 * could change which one it is: it and every image featured after it (hidden now; shown again,
 * one would be featured).
 */
export async function featuredImageAndWatched(db: Database): Promise<{ imageId: number | undefined; watched: number[] }> {
  const rows = await db.execute<{ image_id: number; hidden: boolean }>(sql`
    with newest_shown as (
      select f.created_at, f.id from image_features f join images i on i.id = f.image_id
      where not i.hidden_from_users
      order by f.created_at desc, f.id desc limit 1
    )
    select f.image_id, i.hidden_from_users as hidden
    from image_features f join images i on i.id = f.image_id
    where not exists (select 1 from newest_shown) or (f.created_at, f.id) >= (select created_at, id from newest_shown)
    order by f.created_at desc, f.id desc`);
  const list = [...rows];
  return { imageId: list.find((r) => !r.hidden)?.image_id, watched: list.map((r) => r.image_id) };
}
