/**
 * `npm run bench -- image-cache [--images N] [--pages P] [--mb MB]`: the rendered-image cache on
 * the bulk-seeded board of N images (`bench/.cache/board-<N>/`, the boards of `search` and `load`;
 * default 100,000, the 1M board is `--images 1000000`).
 *
 * 1. Cold: P search pages of 50 random images each (seeded) rendered through the loader the
 *    lists use with no cache, so every image comes from PostgreSQL: the baseline.
 * 2. The warm start (`src/http/render/image-cache-warmer.ts`) over the whole board, within the
 *    cache's budget (`--mb`, default the service's own default from the machine's memory): its
 *    rate, the event loop's delay while it runs (what a request waits behind a batch), and the
 *    bytes per image, both as counted against the budget and as measured in the process's memory
 *    after a full GC (and how much of that is on the JS heap).
 * 3. Warm: the same pages through the warmed cache, with the share of their images it held. The
 *    ratio is cold over warm time per page.
 *
 * Run it under `nice -n 10` on a shared machine. The last line is one JSON object of the figures.
 */
import { join, dirname } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.js';
import { createReadCaches } from '../src/caches/read-caches.js';
import { warmImageCache } from '../src/http/render/image-cache-warmer.js';
import { cachedImages } from '../src/http/render/images.js';
import { mulberry32 } from '../src/lib/random.js';
import type { SearchEngine } from '../src/search/engine.js';
import { loadAverage } from './harness/stats.js';
import { openBoard } from './search/board.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const log = (m: string) => process.stderr.write(`${m}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
function fullGc(): void {
  for (let i = 0; i < 3; i++) gc?.();
}
/** Memory that cache entries take: on the JS heap, and in buffers outside it. */
function memoryInUse(): { heap: number; external: number } {
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external };
}

const PAGE = 50;

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { images: { type: 'string', default: '100000' }, pages: { type: 'string', default: '200' }, mb: { type: 'string' } } });
  const images = Number(values.images);
  const pages = Number(values.pages);
  if (!gc) log('note: run with --expose-gc (npm run bench does) for memory figures after a full GC');
  const config = loadConfig({ DEMO_DATA: 'false', ...(values.mb === undefined ? {} : { IMAGE_CACHE_MB: values.mb }) });
  const board = await openBoard(join(HERE, '.cache'), images, false, log);
  const { db } = board.handle;
  try {
    const caches = createReadCaches(db, { images: { maxBytes: config.imageCacheBytes } });
    for (let i = 0; i < 200 && !caches.feed.live; i++) await new Promise((r) => setTimeout(r, 25));
    if (!caches.feed.live) throw new Error('the change feed did not start listening');
    // the loader never asks the engine: it only renders the ids it is given
    const engine = { kind: 'embedded' } as SearchEngine;
    const cold = { config, db, engine };
    const warm = { ...cold, caches };

    const random = mulberry32(7);
    const [range] = await db.$client.unsafe<{ lo: number; hi: number }[]>('select min(id)::int as lo, max(id)::int as hi from images');
    const pageIds = Array.from({ length: pages }, () => Array.from({ length: PAGE }, () => range!.lo + Math.floor(random() * (range!.hi - range!.lo + 1))));

    const timePages = async (deps: typeof cold) => {
      const started = performance.now();
      let n = 0;
      for (const ids of pageIds) n += (await cachedImages(deps, ids)).length;
      return { ms: performance.now() - started, images: n };
    };

    const loads: Record<string, string> = { start: loadAverage() };
    log(`cold: ${pages} pages of ${PAGE} random images from PostgreSQL`);
    await timePages(cold); // the first pass warms PostgreSQL's buffers and the JIT, not the cache
    const coldRun = await timePages(cold);
    loads.cold = loadAverage();

    log(`warm start into a budget of ${(config.imageCacheBytes / 2 ** 20).toFixed(0)} MiB`);
    fullGc();
    const before = memoryInUse();
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const warmed = await warmImageCache(warm);
    loop.disable();
    fullGc();
    const after = memoryInUse();
    const heapBytes = after.heap - before.heap;
    const externalBytes = after.external - before.external;
    loads.warmStart = loadAverage();

    // before the pages load what they miss (which the cache then keeps)
    const hits = caches.images.lookup(pageIds.flat()).found.size / new Set(pageIds.flat()).size;
    const warmRun = await timePages(warm);
    loads.warm = loadAverage();

    const figures = {
      bench: 'image-cache',
      images,
      pages,
      budgetMb: Math.round(config.imageCacheBytes / 2 ** 20),
      warmed: warmed.images,
      warmStop: warmed.stop,
      warmSeconds: +(warmed.ms / 1000).toFixed(1),
      warmImagesPerSecond: Math.round(warmed.loaded / (warmed.ms / 1000)),
      warmLoopDelayP99Ms: +(loop.percentile(99) / 1e6).toFixed(1),
      warmLoopDelayMaxMs: +(loop.max / 1e6).toFixed(1),
      countedBytesPerImage: Math.round(warmed.bytes / warmed.images),
      measuredBytesPerImage: Math.round((heapBytes + externalBytes) / warmed.images),
      heapBytesPerImage: Math.round(heapBytes / warmed.images),
      coldPageMs: +(coldRun.ms / pages).toFixed(2),
      warmPageMs: +(warmRun.ms / pages).toFixed(3),
      warmHitRatio: +hits.toFixed(3),
      ratio: +(coldRun.ms / warmRun.ms).toFixed(1),
      loads,
    };
    console.log(`images ${images.toLocaleString('en')}, budget ${figures.budgetMb} MiB`);
    console.log(`warm start: ${figures.warmed.toLocaleString('en')} images (${figures.warmStop}) in ${figures.warmSeconds} s, ${figures.warmImagesPerSecond.toLocaleString('en')} images/s; event loop delay p99 ${figures.warmLoopDelayP99Ms} ms, max ${figures.warmLoopDelayMaxMs} ms`);
    console.log(`bytes per image: ${figures.countedBytesPerImage} counted, ${figures.measuredBytesPerImage} measured (${figures.heapBytesPerImage} of them on the JS heap)`);
    console.log(`a page of ${PAGE}: cold ${figures.coldPageMs} ms, warm ${figures.warmPageMs} ms (hits ${(hits * 100).toFixed(1)} %): ${figures.ratio}× faster warm`);
    console.log(JSON.stringify(figures));
  } finally {
    await board.handle.close();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
