/**
 * Whole answers made of cached images, as anonymous callers are answered them: search pages of
 * images (kept by the engine request that found them) and single images (`GET /images/:id`, kept
 * by filter row and id), the body and its entity tag.
 *
 * Why: a page asked again (a tag's first page, a client polling for new uploads, the front page)
 * was copied together again from the cached images' JSON every time: a lookup of each image in
 * the million-entry image cache, views of its record, its spoiler check, the page's bytes copied
 * into one buffer and its digests hashed for the ETag. That was a third of the main thread's time
 * in a search request, and a sixth of it in a single image's.
 *
 * Freshness: a kept answer is served only when every image in it is still held by the image cache
 * as it was when the answer was made (`ImageJsonCache.holdsStill`, looked at only when a change
 * was heard since the last look) and, for a search page, the engine, asked again, answers the
 * same ids and total. The image cache drops exactly the images a change touched (the image, a tag
 * it shows, its uploader's name), and so an answer leaves with any image of it. What else the
 * body depends on is in the key: a search request object is kept per query, page, order and
 * filter row (`routes/search.ts`), and an edited filter is a new row. The spoiler flags depend on
 * the filter's tags alone when it has no complex expressions; answers seen through a filter that
 * has one (evaluated on index documents, possibly against the clock) are not kept, nor pages of
 * requests that are not reused (a random order's seed), nor anything while changes cannot be
 * heard; a `*` lets every answer go.
 *
 * Memory: bounded by bytes; the oldest answer not asked for lately goes first
 * (`src/lib/bounded-map.ts`). One whose key is never asked for again (an expired request) leaves
 * in its turn.
 */
import type { RecordChange } from '../db/record-change-feed.js';
import type { FilterRow } from '../contexts/filters/types.js';
import { BoundedMap } from '../lib/bounded-map.js';
import type { ImageJsonCache } from './image-json-cache.js';
import { CacheRegistry, type CacheCounts } from '../lib/cache-registry.js';

export interface KeptImageAnswer {
  /** The images listed, in order (for a search page, the engine's answer it was made from). */
  ids: readonly number[];
  /** The engine's total (1 for a single image). */
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

/** An answer just made, and what it was made of. */
export interface MadeImageAnswer {
  /** The ids asked for (the engine's hits, or the one id of the path). */
  ids: readonly number[];
  total: number;
  /** The ids the answer lists (`RenderedImageList.ids`). */
  listed: readonly number[];
  body: Uint8Array<ArrayBuffer>;
  etag: string;
}

/** What a kept answer costs besides its body: its ids, places and the map's entry. */
const ANSWER_OVERHEAD_BYTES = 256;

const answerBytes = (answer: KeptImageAnswer) => ANSWER_OVERHEAD_BYTES + answer.body.byteLength + answer.places.byteLength + 8 * answer.ids.length;

/**
 * Whether an answer seen through `filter` may be kept whole: its spoiler flags then follow from
 * the images' tags alone.
 */
export const answerKeepableThrough = (filter: FilterRow | null): boolean =>
  filter === null || (filter.hiddenComplexStr.trim() === '' && filter.spoileredComplexStr.trim() === '');

export class ImageAnswerCache {
  private readonly answers: BoundedMap<unknown, KeptImageAnswer>;
  private readonly counts: CacheCounts;

  constructor(maxBytes: number, registry = new CacheRegistry()) {
    this.answers = new BoundedMap({ maxBytes, sizeOf: answerBytes });
    const held = () => ({ entries: this.answers.size, bytes: this.answers.bytes });
    // the image cache's changes reach it through `holdsStill`
    this.counts = registry.register({ name: 'image_answers', budget: { bytes: maxBytes }, invalidatedBy: ['images', 'tag_display', 'user', '*'], held });
  }

  get size(): number {
    return this.answers.size;
  }

  /**
   * The answer kept for `key` when `images` still holds each of its images as it did and, given
   * the engine's answer, that is still its `ids` of `total`; else undefined (and a stale answer is
   * let go).
   */
  find(key: unknown, images: ImageJsonCache, engine?: { ids: readonly number[]; total: number }): KeptImageAnswer | undefined {
    const answer = this.answers.get(key);
    if (answer !== undefined && (engine === undefined || (answer.total === engine.total && sameIds(answer.ids, engine.ids)))) {
      // (an image evicted for room is no staler than before: only a change heard makes one stale)
      const mark = images.mark();
      if (mark === answer.checkedAt || images.holdsStill(answer.places)) {
        answer.checkedAt = mark;
        this.counts.hit();
        return answer;
      }
    }
    if (answer !== undefined) this.answers.delete(key);
    this.counts.miss();
    return undefined;
  }

  /**
   * Keep an answer made from `images` since its mark `before`, when it can be checked later: no
   * change heard while it was made touched one of its images (one read from the cache before a
   * change and stored again after it would pass for current; changes to other images do not
   * matter, and on a board edited every second most answers are made while one is heard), it
   * lists every id asked for (one gone from PostgreSQL meanwhile is looked for again each time),
   * and the cache holds each of them.
   */
  keepMade(key: unknown, images: ImageJsonCache, before: number, made: MadeImageAnswer): void {
    if (made.listed.length !== made.ids.length) return;
    const places = images.placesUntouchedSince(before, made.listed);
    if (places === null) return;
    this.keep(key, { ids: [...made.ids], total: made.total, places, body: made.body, etag: made.etag, checkedAt: before });
  }

  /** Keep `answer` for `key`, in place of any before it; the least asked for leave while over budget. */
  keep(key: unknown, answer: KeptImageAnswer): void {
    this.answers.set(key, answer);
  }

  /** Any other change is met when an answer is asked for (`find`): only `*` lets every answer go now. */
  onChange(change: RecordChange): void {
    if (!('id' in change)) this.clear();
  }

  clear(): void {
    this.answers.clear();
  }
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
