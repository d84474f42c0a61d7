/**
 * The app's caches of rendered and looked-up records, emptied by the changes PostgreSQL announces
 * (`src/db/change-feed.ts`). While the feed is not live (before the first LISTEN, or when it
 * failed), the caches are bypassed: a missed change could otherwise be served for long. Each
 * registers with the app's `registry` (budget, invalidating changes, hits and misses on
 * `/metrics`).
 */
import { changeFeedOf, type ChangeFeed } from '../db/change-feed.js';
import type { Database } from '../db/client.js';
import { BanCache } from './ban-cache.js';
import { KeyCache } from './key-cache.js';
import { FilterRowCache } from './filter-row-cache.js';
import { ImageJsonCache, type ImageJsonCacheOptions } from './image-json-cache.js';
import { ImageAnswerCache } from './image-answer-cache.js';
import { RecordJsonCache } from './record-json-cache.js';
import { FeaturedImageCache } from './featured-cache.js';
import { HiddenImageIds } from './hidden-image-ids.js';
import { CacheRegistry } from './registry.js';
import { TagSlugIds } from './tag-slug-ids.js';

/** Bytes of rendered tags, and of rendered comments (a search page of either is a few kilobytes). */
const RECORD_CACHE_BYTES = 32 * 1024 * 1024;

export interface ReadCaches {
  feed: ChangeFeed;
  /** Where these caches registered. */
  registry: CacheRegistry;
  images: ImageJsonCache;
  /** Whole answers of images for anonymous callers (search pages, single images), made of `images`. */
  imageAnswers: ImageAnswerCache;
  /** Rendered tags and comments, for search/tags and search/comments. */
  tags: RecordJsonCache;
  comments: RecordJsonCache;
  /** Which tag a slug names, checked against the tag's JSON. */
  tagSlugs: TagSlugIds;
  /** Which image is featured. */
  featured: FeaturedImageCache;
  /** Which images are merged or deleted (their files are withheld). */
  hiddenImages: HiddenImageIds;
  filters: FilterRowCache;
  /** The caller's state: what a key stands for, and the ban in force for an identity. */
  keys: KeyCache;
  bans: BanCache;
}

export function createReadCaches(db: Database, options: { images?: ImageJsonCacheOptions } = {}): ReadCaches {
  const feed = changeFeedOf(db);
  const registry = new CacheRegistry();
  const images = new ImageJsonCache(options.images, registry);
  const caches: ReadCaches = {
    feed,
    registry,
    images,
    // an eighth of the images' budget: answers repeat their images, and the popular ones are few
    imageAnswers: new ImageAnswerCache(images.budgetBytes / 8, registry),
    tags: new RecordJsonCache(RECORD_CACHE_BYTES, { name: 'tag_json', invalidatedBy: ['tags', 'tag_dnp', '*'] }, registry),
    comments: new RecordJsonCache(RECORD_CACHE_BYTES, { name: 'comment_json', invalidatedBy: ['comments', 'images', 'user', '*'] }, registry),
    tagSlugs: new TagSlugIds(registry),
    featured: new FeaturedImageCache(registry),
    hiddenImages: new HiddenImageIds(registry),
    filters: new FilterRowCache(Date.now, registry),
    keys: new KeyCache(registry),
    bans: new BanCache(db, undefined, feed, registry),
  };
  feed.subscribe((change) => {
    caches.images.onChange(change);
    caches.imageAnswers.onChange(change);
    caches.tags.onChange(change);
    caches.comments.onChange(change);
    caches.featured.onChange(change);
    caches.hiddenImages.onChange(change);
    caches.filters.onChange(change);
    caches.keys.onChange(change);
  });
  feed.start();
  return caches;
}

/** The caches to use for this request, or null while changes cannot be heard. */
export function liveCaches(caches: ReadCaches | undefined): ReadCaches | null {
  return caches !== undefined && caches.feed.live ? caches : null;
}
