/**
 * The app's caches of rendered and looked-up records, emptied by the changes PostgreSQL announces
 * (`src/db/change-feed.ts`). While the feed is not live (before the first LISTEN, or when it
 * failed), the caches are bypassed: a missed change could otherwise be served for long.
 */
import { changeFeedOf, type ChangeFeed } from '../db/change-feed.js';
import type { Database } from '../db/client.js';
import { BanCache } from '../limits/index.js';
import { KeyCache } from './key-cache.js';
import { FilterCache } from './render/filter-cache.js';
import { ImageJsonCache, type ImageJsonCacheOptions } from './render/image-json-cache.js';

export interface ReadCaches {
  feed: ChangeFeed;
  images: ImageJsonCache;
  filters: FilterCache;
  /** The caller's state: what a key stands for, and the ban in force for an identity. */
  keys: KeyCache;
  bans: BanCache;
}

export function createReadCaches(db: Database, options: { images?: ImageJsonCacheOptions } = {}): ReadCaches {
  const feed = changeFeedOf(db);
  const caches: ReadCaches = {
    feed,
    images: new ImageJsonCache(options.images),
    filters: new FilterCache(),
    keys: new KeyCache(),
    bans: new BanCache(db, undefined, feed),
  };
  feed.subscribe((change) => {
    caches.images.onChange(change);
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
