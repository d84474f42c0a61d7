/**
 * Image JSON for the API: the images context's data plus the `spoilered` flag against the current
 * filter. Single images and short lists are rendered as objects by `renderImages`; search pages as
 * JSON text by `renderImageListJson`, through the app's cache of rendered images.
 */
import type { Config } from '../../config.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import { loadInteractions } from '../../contexts/images/interactions.js';
import { loadImageData, type ImageData } from '../../contexts/images/load.js';
import type { UserRow } from '../../contexts/users/types.js';
import type { Database } from '../../db/client.js';
import type { AppDeps } from '../context.js';
import { liveCaches } from '../../caches/read-caches.js';
import { spoileredImageIds } from '../../contexts/search/spoiler.js';
import { imageView, type ImageJson } from '../views/image.js';
import { oembedView } from '../views/oembed.js';
import { interactionView, type InteractionJson } from '../views/interactions.js';
import { cachedImageJson, imageJsonParts, type CachedImage } from '../../caches/image-json-cache.js';

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
  // a hidden image's stub has no `spoilered`: its filter checks are not made
  const list = [...data.values()].filter((d) => !d.image.hiddenFromUsers);
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

type RenderConfig = Pick<Config, 'cdnUrl' | 'baseUrl' | 'siteName'>;

/** An image's oEmbed answer as JSON text; null for a hidden image. */
const oembedJson = (config: RenderConfig, d: ImageData) => (d.image.hiddenFromUsers ? null : JSON.stringify(oembedView(config, d.image, d.tags, d.sources)));

/**
 * An image's JSON, kept for lists and single reads (see `image-json-cache.ts`); with its oEmbed
 * answer if asked. A hidden image's stub shows no tags and no uploader: their changes leave it be.
 */
function cachedImageOf(config: RenderConfig, d: ImageData, withOembed: boolean): CachedImage {
  const json = JSON.stringify(imageView(config, { ...d, spoilered: false }));
  const oembed = withOembed ? oembedJson(config, d) : undefined;
  if (d.image.hiddenFromUsers) return cachedImageJson(d.image.id, json, [], null, oembed, true);
  return cachedImageJson(d.image.id, json, d.tags.map((t) => t.id), d.image.userId, oembed);
}

/**
 * The cached images of each id that exists, in the order of `ids`; missing and repeated ids are
 * dropped. Images rendered by an earlier request are taken from the app's cache, the others loaded
 * from PostgreSQL (and kept).
 */
export async function cachedImages(deps: AppDeps, ids: readonly number[], withOembed = false): Promise<CachedImage[]> {
  const cache = liveCaches(deps.caches)?.images ?? null;
  const unique = ids.length === 1 ? ids : [...new Set(ids)];
  // an image kept without its oEmbed answer is loaded again when that is asked for
  const { found, missing } = cache ? cache.lookup(unique, withOembed) : { found: new Map<number, CachedImage>(), missing: [...unique] };
  if (missing.length > 0) {
    const mark = cache?.mark() ?? 0;
    const loaded = [...(await loadImageData(deps.db, missing)).values()].map((d) => cachedImageOf(deps.config, d, withOembed));
    cache?.keep(mark, loaded);
    for (const image of loaded) found.set(image.id, image);
  }
  const listed: CachedImage[] = [];
  for (const id of unique) {
    const image = found.get(id);
    if (image !== undefined) listed.push(image);
  }
  return listed;
}

/** A list of images as JSON, and what determines it: each image's digest and spoiler flag. */
export interface RenderedImageList {
  /** The images' JSON objects, comma-separated, in pieces of UTF-8 (see `imageJsonParts`). */
  parts: Uint8Array[];
  fingerprint: string;
  /** The ids listed, in order. */
  ids: number[];
}

/**
 * The JSON of each id that exists, in the order of `ids` (search hit order); missing and repeated
 * ids are dropped. The same images as `renderImages`, byte for byte, but images rendered by an
 * earlier request are taken from the app's cache.
 */
export async function renderImageListJson(deps: AppDeps, ids: readonly number[], ctx: RenderContext): Promise<RenderedImageList> {
  const listed = await cachedImages(deps, ids);
  const spoilered = await spoileredImageIds(deps, ctx.filter, ctx.user, listed.filter((image) => image.spoileredAt >= 0));
  return {
    parts: imageJsonParts(listed, spoilered),
    fingerprint: listed.map((image) => image.digest + (spoilered.has(image.id) ? '1' : '0')).join(''),
    ids: listed.map((image) => image.id),
  };
}

/** One image's JSON, or undefined when there is no such image. */
export async function renderImage(deps: AppDeps, id: number, ctx: RenderContext): Promise<ImageJson | undefined> {
  return (await renderImages(deps, [id], ctx))[0];
}

/**
 * The caller's interactions with the given images (reference §5.4) as JSON; anonymous callers
 * have none.
 */
export async function renderInteractions(db: Database, user: UserRow | null, imageIds: readonly number[]): Promise<InteractionJson[]> {
  if (user === null) return [];
  const rows = await loadInteractions(db, user.id, imageIds);
  return rows.map((r) => (r.kind === 'voted' ? interactionView(r.imageId, user.id, 'voted', r.up ? 'up' : 'down') : interactionView(r.imageId, user.id, r.kind)));
}
