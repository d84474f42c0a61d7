/**
 * Loading images for the API: rows by id plus everything the image view needs (tags in display
 * order, sources, intensities, uploader names), then the `spoilered` flag against the current
 * filter. A fixed number of set-based queries per batch, whatever the batch size. Search routes
 * call `renderImages` with their hit ids.
 */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { imageFaves, imageHides, imageIntensities, images, imageSources, imageTaggings, imageVotes, tags, users } from '../../db/schema/index.js';
import { displayOrder } from '../../tags/display-order.js';
import type { AppDeps, FilterRow, UserRow } from '../context.js';
import { spoileredImageIds } from '../spoiler.js';
import { imageView, type ImageJson, type ImageRow, type ImageTag, type Intensities } from '../views/image.js';
import { interactionView, type InteractionJson } from '../views/interactions.js';

/** An image row with what its views need besides the filter. */
export interface ImageData {
  image: ImageRow;
  tags: ImageTag[];
  sources: string[];
  intensities: Intensities | null;
  uploaderName: string | null;
}

/** Everything about the given images, keyed by id; unknown ids are absent. */
export async function loadImageData(db: Database, ids: readonly number[]): Promise<Map<number, ImageData>> {
  const unique = [...new Set(ids)];
  const result = new Map<number, ImageData>();
  if (unique.length === 0) return result;
  const rows = await db.select().from(images).where(inArray(images.id, unique));
  if (rows.length === 0) return result;
  const found = rows.map((r) => r.id);
  const uploaderIds = [...new Set(rows.flatMap((r) => (r.userId === null ? [] : [r.userId])))];
  const [tagRows, sourceRows, intensityRows, uploaderRows] = await Promise.all([
    db
      .select({
        imageId: imageTaggings.imageId,
        id: tags.id,
        name: tags.name,
        slug: tags.slug,
        category: tags.category,
        namespace: tags.namespace,
        nameInNamespace: tags.nameInNamespace,
      })
      .from(imageTaggings)
      .innerJoin(tags, eq(tags.id, imageTaggings.tagId))
      .where(inArray(imageTaggings.imageId, found))
      .orderBy(asc(imageTaggings.position), asc(tags.id)),
    db
      .select()
      .from(imageSources)
      .where(inArray(imageSources.imageId, found))
      .orderBy(asc(imageSources.position), asc(imageSources.source)),
    db.select().from(imageIntensities).where(inArray(imageIntensities.imageId, found)),
    uploaderIds.length === 0
      ? Promise.resolve([])
      : db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, uploaderIds)),
  ]);
  const uploaders = new Map(uploaderRows.map((u) => [u.id, u.name]));
  for (const image of rows) {
    result.set(image.id, {
      image,
      tags: [],
      sources: [],
      intensities: null,
      uploaderName: image.userId === null ? null : (uploaders.get(image.userId) ?? null),
    });
  }
  for (const { imageId, ...tag } of tagRows) result.get(imageId)?.tags.push(tag);
  for (const s of sourceRows) result.get(s.imageId)?.sources.push(s.source);
  for (const i of intensityRows) {
    const data = result.get(i.imageId);
    if (data) data.intensities = { nw: i.nw, ne: i.ne, sw: i.sw, se: i.se };
  }
  for (const data of result.values()) data.tags = displayOrder(data.tags);
  return result;
}

export interface RenderContext {
  filter: FilterRow | null;
  user: UserRow | null;
}

/**
 * The image JSON of each id that exists, in the order of `ids` (search hit order); missing ids
 * are dropped.
 */
export async function renderImages(deps: AppDeps, ids: readonly number[], ctx: RenderContext): Promise<ImageJson[]> {
  const data = await loadImageData(deps.db, ids);
  const list = [...data.values()];
  const spoilered = await spoileredImageIds(deps, ctx.filter, ctx.user, list.map((d) => ({ id: d.image.id, tagIds: d.tags.map((t) => t.id) })));
  const out: ImageJson[] = [];
  const seen = new Set<number>();
  for (const id of ids) {
    const d = data.get(id);
    if (!d || seen.has(id)) continue;
    seen.add(id);
    out.push(imageView(deps.config, { ...d, spoilered: spoilered.has(id) }));
  }
  return out;
}

/** One image's JSON, or undefined when there is no such image. */
export async function renderImage(deps: AppDeps, id: number, ctx: RenderContext): Promise<ImageJson | undefined> {
  return (await renderImages(deps, [id], ctx))[0];
}

/**
 * The caller's interactions with the given images (reference §5.4): hides, faves and votes, in
 * that order, each by image id. Anonymous callers have none.
 */
export async function loadInteractions(db: Database, user: UserRow | null, imageIds: readonly number[]): Promise<InteractionJson[]> {
  if (user === null || imageIds.length === 0) return [];
  const ids = [...new Set(imageIds)];
  const [hides, faves, votes] = await Promise.all([
    db.select({ imageId: imageHides.imageId }).from(imageHides).where(and(eq(imageHides.userId, user.id), inArray(imageHides.imageId, ids))).orderBy(asc(imageHides.imageId)),
    db.select({ imageId: imageFaves.imageId }).from(imageFaves).where(and(eq(imageFaves.userId, user.id), inArray(imageFaves.imageId, ids))).orderBy(asc(imageFaves.imageId)),
    db.select({ imageId: imageVotes.imageId, up: imageVotes.up }).from(imageVotes).where(and(eq(imageVotes.userId, user.id), inArray(imageVotes.imageId, ids))).orderBy(asc(imageVotes.imageId)),
  ]);
  return [
    ...hides.map((h) => interactionView(h.imageId, user.id, 'hidden')),
    ...faves.map((f) => interactionView(f.imageId, user.id, 'faved')),
    ...votes.map((v) => interactionView(v.imageId, user.id, 'voted', v.up ? 'up' : 'down')),
  ];
}
