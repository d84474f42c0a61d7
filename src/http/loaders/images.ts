/**
 * Loading images for the API: rows by id plus everything the image view needs (tags in display
 * order, sources, intensities, uploader names), then the `spoilered` flag against the current
 * filter. Two round trips per batch, whatever the batch size (raw SQL, see `image-rows.ts`).
 * Single images and short lists are rendered as objects by `renderImages`; search pages as JSON
 * text by `renderImageListJson`, through the app's cache of rendered images.
 */
import { sqlClientOf, type Database } from '../../db/client.js';
import { displayOrder } from '../../contexts/tags/display-order.js';
import type { Config } from '../../config.js';
import type { AppDeps } from '../context.js';
import { liveCaches } from '../read-caches.js';
import { spoileredImageIds } from '../spoiler.js';
import { imageView, type ImageJson } from '../views/image.js';
import { interactionView, type InteractionJson } from '../views/interactions.js';
import { selectImageRows, selectTags } from './image-rows.js';
import { cachedImageJson, imageJsonParts, type CachedImage } from './image-json-cache.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import type { ImageRow, ImageTag, Intensities } from '../../contexts/images/types.js';
import type { UserRow } from '../../contexts/users/types.js';

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
  const result = new Map<number, ImageData>();
  if (ids.length === 0) return result;
  const rows = await selectImageRows(db, [...new Set(ids)]);
  const tags = await selectTags(db, [...new Set(rows.flatMap((r) => r.tagIds))]);
  for (const { image, tagIds, sources, intensities, uploaderName } of rows) {
    result.set(image.id, { image, tags: displayOrder(tagsOf(tagIds, tags)), sources, intensities, uploaderName });
  }
  return result;
}

/** The tags of the ids, in their order; an id whose tag has just been deleted is skipped. */
function tagsOf(ids: readonly number[], tags: ReadonlyMap<number, ImageTag>): ImageTag[] {
  const out: ImageTag[] = [];
  for (const id of ids) {
    const tag = tags.get(id);
    if (tag !== undefined) out.push(tag);
  }
  return out;
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

/** An image's JSON, kept for lists (see `image-json-cache.ts`). */
function cachedImageOf(config: Pick<Config, 'cdnUrl'>, d: ImageData): CachedImage {
  const json = JSON.stringify(imageView(config, { ...d, spoilered: false }));
  return cachedImageJson(d.image.id, json, d.tags.map((t) => t.id), d.image.userId);
}

/** A list of images as JSON, and what determines it: each image's digest and spoiler flag. */
export interface RenderedImageList {
  /** The images' JSON objects, comma-separated, in pieces of UTF-8 (see `imageJsonParts`). */
  parts: Uint8Array[];
  fingerprint: string;
}

/**
 * The JSON of each id that exists, in the order of `ids` (search hit order); missing and repeated
 * ids are dropped. The same images as `renderImages`, byte for byte, but images rendered by an
 * earlier request are taken from the app's cache.
 */
export async function renderImageListJson(deps: AppDeps, ids: readonly number[], ctx: RenderContext): Promise<RenderedImageList> {
  const cache = liveCaches(deps.caches)?.images ?? null;
  const unique = [...new Set(ids)];
  const { found, missing } = cache ? cache.lookup(unique) : { found: new Map<number, CachedImage>(), missing: unique };
  if (missing.length > 0) {
    const mark = cache?.mark() ?? 0;
    const loaded = [...(await loadImageData(deps.db, missing)).values()].map((d) => cachedImageOf(deps.config, d));
    cache?.keep(mark, loaded);
    for (const image of loaded) found.set(image.id, image);
  }
  const listed: CachedImage[] = [];
  for (const id of unique) {
    const image = found.get(id);
    if (image !== undefined) listed.push(image);
  }
  const spoilered = await spoileredImageIds(deps, ctx.filter, ctx.user, listed);
  return {
    parts: imageJsonParts(listed, spoilered),
    fingerprint: listed.map((image) => image.digest + (spoilered.has(image.id) ? '1' : '0')).join(''),
  };
}

/** One image's JSON, or undefined when there is no such image. */
export async function renderImage(deps: AppDeps, id: number, ctx: RenderContext): Promise<ImageJson | undefined> {
  return (await renderImages(deps, [id], ctx))[0];
}

/** Hides, faves and votes of one user on a set of images, in that order, each by image id. */
const INTERACTIONS = `
select 0 as kind, image_id, null::boolean as up from image_hides where user_id = $1 and image_id = any($2::int[])
union all
select 1, image_id, null from image_faves where user_id = $1 and image_id = any($2::int[])
union all
select 2, image_id, up from image_votes where user_id = $1 and image_id = any($2::int[])
order by kind, image_id`;

const INTERACTION_TYPES = ['hidden', 'faved', 'voted'] as const;

/**
 * The caller's interactions with the given images (reference §5.4): hides, faves and votes, in
 * that order, each by image id. Anonymous callers have none. One round trip (raw SQL like
 * `loadImageData`: it runs on every image list of a signed-in caller).
 */
export async function loadInteractions(db: Database, user: UserRow | null, imageIds: readonly number[]): Promise<InteractionJson[]> {
  if (user === null || imageIds.length === 0) return [];
  const ids = [...new Set(imageIds)];
  const rows = await sqlClientOf(db).unsafe<{ kind: 0 | 1 | 2; image_id: number; up: boolean | null }[]>(INTERACTIONS, [user.id, ids as never], {
    prepare: true,
  });
  return rows.map((r) =>
    r.kind === 2
      ? interactionView(r.image_id, user.id, 'voted', r.up ? 'up' : 'down')
      : interactionView(r.image_id, user.id, INTERACTION_TYPES[r.kind]),
  );
}
