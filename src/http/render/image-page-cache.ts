/**
 * Whole search pages of images, as anonymous callers are answered them: the body and its entity
 * tag, kept by the engine request that found them.
 *
 * Why: a page asked again (a tag's first page, a client polling for new uploads, the front page)
 * was copied together again from the cached images' JSON every time: a lookup of each image in
 * the million-entry image cache, views of its record, its spoiler check, the page's bytes copied
 * into one buffer and its digests hashed for the ETag. That was a third of the main thread's time
 * in a search request.
 *
 * Freshness: a kept page is served only when the engine, asked again, answers the same ids and
 * total, and every image on it is still held by the image cache as it was when the page was made
 * (`ImageJsonCache.holdsStill`, looked at only when a change was heard since the last look): the
 * image cache drops exactly the images a change touched (the image, a tag it shows, its uploader's
 * name), and so a page leaves with any image of it. What else the body depends on is in the key:
 * the request object is kept per query, page, order and filter row (`routes/search.ts`), and an
 * edited filter is a new row. The spoiler flags depend on the filter's tags alone when it has no
 * complex expressions; pages seen through a filter that has one (evaluated on index documents,
 * possibly against the clock) are not kept, nor pages of requests that are not reused (a random
 * order's seed), nor anything while changes cannot be heard; a `*` lets every page go.
 *
 * Memory: bounded by bytes; the oldest page goes first. A page whose request expired is never
 * asked for again and leaves in its turn.
 */
import type { RecordChange } from '../../db/change-feed.js';
import type { ImageJsonCache } from './image-json-cache.js';

export interface KeptImagePage {
  /** The engine's answer the page was made from. */
  ids: readonly number[];
  total: number;
  /** Where its images were held (`ImageJsonCache.placesOf`). */
  places: Int32Array;
  body: Uint8Array<ArrayBuffer>;
  etag: string;
  /**
   * The image cache's mark (`ImageJsonCache.mark`) when its images were last found held as they
   * were: while no change has been heard since, they still are, and are not looked at again.
   */
  checkedAt: number;
}

/** What a kept page costs besides its body: its ids, places and the map's entry. */
const PAGE_OVERHEAD_BYTES = 256;

const pageBytes = (page: KeptImagePage) => PAGE_OVERHEAD_BYTES + page.body.byteLength + page.places.byteLength + 8 * page.ids.length;

export class ImagePageCache {
  private readonly pages = new Map<object, KeptImagePage>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.pages.size;
  }

  /**
   * The page kept for `request` when the engine's answer to it is still `ids` of `total` and
   * `images` still holds each of its images as it did; else undefined (and a stale page is let go).
   */
  find(request: object, ids: readonly number[], total: number, images: ImageJsonCache): KeptImagePage | undefined {
    const page = this.pages.get(request);
    if (page === undefined) return undefined;
    if (page.total === total && sameIds(page.ids, ids)) {
      // (an image evicted for room is no staler than before: only a change heard makes one stale)
      const mark = images.mark();
      if (mark === page.checkedAt) return page;
      if (images.holdsStill(page.places)) {
        page.checkedAt = mark;
        return page;
      }
    }
    this.drop(request, page);
    return undefined;
  }

  /** Keep `page` for `request`, in place of any before it; the oldest pages leave while over budget. */
  keep(request: object, page: KeptImagePage): void {
    const bytes = pageBytes(page);
    if (bytes > this.maxBytes) return;
    const old = this.pages.get(request);
    if (old !== undefined) this.drop(request, old);
    this.pages.set(request, page);
    this.bytes += bytes;
    for (const [oldest, kept] of this.pages) {
      if (this.bytes <= this.maxBytes) break;
      this.drop(oldest, kept);
    }
  }

  /** Any other change is met when a page is asked for (`find`): only `*` lets every page go now. */
  onChange(change: RecordChange): void {
    if (!('id' in change)) this.clear();
  }

  clear(): void {
    this.pages.clear();
    this.bytes = 0;
  }

  private drop(request: object, page: KeptImagePage): void {
    this.pages.delete(request);
    this.bytes -= pageBytes(page);
  }
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
