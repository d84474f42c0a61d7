/**
 * The warm start of the image cache: after the service is ready, the newest visible images are
 * loaded into `src/caches/image-json-cache.ts` in the background, so that the first search pages over a
 * large board are answered from memory instead of waiting on PostgreSQL one page at a time.
 *
 * The images go through the loader the lists use (`cachedImages`), a batch at a time, so they are
 * rendered byte for byte as a request would render them, and a change heard while a batch loads
 * drops the images it touched (`ImageJsonCache.keep`). Between batches the warmer yields to the
 * event loop, so a request waits at most for one batch's rendering. It stops when one more batch
 * would go beyond the cache's budget (it would evict the newest images it loaded first), when every
 * image is loaded, or when stopped (shutdown). `IMAGE_CACHE_WARM=off` turns it off.
 */
import { setImmediate as yieldToRequests, setTimeout as sleep } from 'node:timers/promises';
import { newestImageIds } from '../../contexts/images/newest.js';
import type { AppDeps } from '../context.js';
import { liveCaches, type ReadCaches } from '../../caches/read-caches.js';
import { cachedImageBytes } from '../../caches/image-json-cache.js';
import { cachedImages } from './images.js';

/**
 * Images a batch: a search page's worth, so that a request waits behind one batch no longer than
 * behind another request's page that missed the cache.
 */
const BATCH = 50;

/** While the change feed is not live the loader keeps nothing: look again after this long. */
const FEED_WAIT_MS = 200;

export interface WarmResult {
  /** Images loaded through the loader (some may have been dropped again by changes). */
  loaded: number;
  /** What the cache holds at the end. */
  images: number;
  bytes: number;
  ms: number;
  /** Why it stopped. */
  stop: 'full' | 'all' | 'stopped';
}

export interface WarmOptions {
  signal?: AbortSignal;
  batch?: number;
  /** After each batch, with the number of images it loaded. */
  onBatch?: (loaded: number) => void;
}

/** Fill the image cache of `deps.caches`, newest images first (see the module comment). */
export async function warmImageCache(deps: AppDeps & { caches: ReadCaches }, options: WarmOptions = {}): Promise<WarmResult> {
  const cache = deps.caches.images;
  const batch = options.batch ?? BATCH;
  const started = performance.now();
  let loaded = 0;
  let before: number | null = null;
  /** What the last batch added: the next is expected to take as much. */
  let lastBatchBytes = 0;
  const result = (stop: WarmResult['stop']): WarmResult => ({ loaded, images: cache.size, bytes: cache.heldBytes, ms: Math.round(performance.now() - started), stop });
  for (;;) {
    if (options.signal?.aborted) return result('stopped');
    if (cache.heldBytes + lastBatchBytes > cache.budgetBytes || cache.budgetBytes === 0) return result('full');
    if (liveCaches(deps.caches) === null) {
      await sleep(FEED_WAIT_MS);
      continue;
    }
    const ids = await newestImageIds(deps.db, before, batch);
    if (ids.length === 0) return result('all');
    before = ids[ids.length - 1]!;
    const images = await cachedImages(deps, ids);
    // counted from the images, not from what the cache holds more: that is less once it evicts
    lastBatchBytes = images.reduce((sum, image) => sum + cachedImageBytes(image), 0);
    loaded += images.length;
    options.onBatch?.(images.length);
    await yieldToRequests();
  }
}

/** A warm start running in the background; `stop` ends it after its current batch. */
export interface ImageCacheWarmer {
  done: Promise<WarmResult | null>;
  stop(): Promise<void>;
}

export interface WarmerLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

/**
 * Start warming in the background: one log line when done (count, time, bytes), and the images
 * loaded counted in `image_cache_warmed_images_total`. A failure (the database went away) is
 * logged and ends the warm start; requests load what they need as before.
 */
export function startImageCacheWarmer(deps: AppDeps & { caches: ReadCaches }, log: WarmerLog): ImageCacheWarmer {
  const controller = new AbortController();
  const done = warmImageCache(deps, { signal: controller.signal, onBatch: (n) => deps.metrics?.imageCacheWarmed.inc(n) }).then(
    (result) => {
      log.info({ ...result, budgetBytes: deps.caches.images.budgetBytes, bytesPerImage: result.images > 0 ? Math.round(result.bytes / result.images) : null }, 'image cache warmed');
      return result;
    },
    (err: unknown) => {
      log.warn({ err }, 'image cache warm start failed');
      return null;
    },
  );
  return {
    done,
    async stop() {
      controller.abort();
      await done;
    },
  };
}
