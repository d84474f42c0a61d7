/**
 * `npm run bench -- cache-order [--entries N] [--lookups L]`: the pauses a cache's order of
 * eviction costs its readers, on the rendered-image cache (`ImageJsonCache`) of N images
 * (default 1,000,000, the 1M board's warm cache) read L times (default 3,000,000) at random.
 *
 * - Baseline: the order every read moved its entry to the young end of a `Map` (delete and set
 *   again), as the caches did before: each move leaves a hole in the map's table, and V8 rebuilds
 *   the whole table when the holes fill it.
 * - Second chance (`src/lib/second-chance.ts`), the caches' order: a read marks its entry only.
 *
 * For each, the time per read (mean, p99.9, the longest) and how many reads took over 1 ms and
 * over 10 ms; the ratio is the baseline's longest read over second chance's. The last line is one
 * JSON object of the figures.
 */
import { parseArgs } from 'node:util';
import { cachedImageJson, ImageJsonCache, type CachedImage } from '../src/caches/image-json-cache.js';
import { mulberry32 } from '../src/lib/random.js';
import { table } from '../src/lib/table.js';

const { values } = parseArgs({ options: { entries: { type: 'string' }, lookups: { type: 'string' } } });
const entries = Number(values.entries ?? 1_000_000);
const lookups = Number(values.lookups ?? 3_000_000);
if (!Number.isInteger(entries) || entries < 1_000 || !Number.isInteger(lookups) || lookups < 1_000) {
  console.error('--entries and --lookups must be whole numbers of at least 1000');
  process.exit(2);
}

/** The old order: a `Map` whose reads move their entry to the young end. */
class MoveOnRead {
  private readonly map = new Map<number, CachedImage>();
  keep(image: CachedImage): void {
    this.map.set(image.id, image);
  }
  lookup(id: number): CachedImage | undefined {
    const image = this.map.get(id);
    if (image !== undefined) {
      this.map.delete(id);
      this.map.set(id, image);
    }
    return image;
  }
}

interface Figures {
  meanUs: number;
  p999Us: number;
  maxMs: number;
  over1ms: number;
  over10ms: number;
}

function measure(read: (id: number) => unknown): Figures {
  const random = mulberry32(7);
  const times = new Float64Array(lookups);
  for (let i = 0; i < lookups; i++) {
    const id = 1 + Math.floor(random() * entries);
    const start = performance.now();
    read(id);
    times[i] = performance.now() - start;
  }
  const total = times.reduce((a, b) => a + b, 0);
  const sorted = times.slice().sort();
  return {
    meanUs: (total / lookups) * 1000,
    p999Us: sorted[Math.floor(lookups * 0.999)]! * 1000,
    maxMs: sorted[lookups - 1]!,
    over1ms: times.filter((t) => t > 1).length,
    over10ms: times.filter((t) => t > 10).length,
  };
}

// small images: the order's cost is the map's, not the bytes'
const images = Array.from({ length: entries }, (_, i) => cachedImageJson(i + 1, JSON.stringify({ id: i + 1, spoilered: false }), [1, 2, 3], null));
// room for every image: reads are measured, not evictions
const budget = 2 * entries * 1024;

const moving = new MoveOnRead();
for (const image of images) moving.keep(image);
const baseline = measure((id) => moving.lookup(id));

const cache = new ImageJsonCache({ maxBytes: budget });
cache.keep(cache.mark(), images);
const ids = [0];
const secondChance = measure((id) => {
  ids[0] = id;
  return cache.lookup(ids);
});

const row = (name: string, f: Figures) => [name, f.meanUs.toFixed(2), f.p999Us.toFixed(1), f.maxMs.toFixed(2), String(f.over1ms), String(f.over10ms)];
console.log(`${entries.toLocaleString('en')} cached images, ${lookups.toLocaleString('en')} random reads`);
console.log(table(['order', 'mean µs', 'p99.9 µs', 'max ms', 'reads > 1 ms', 'reads > 10 ms'], [row('move on read (baseline)', baseline), row('second chance', secondChance)]));
const ratio = baseline.maxMs / secondChance.maxMs;
console.log(`longest read: baseline / second chance = ${ratio.toFixed(1)}×`);
console.log(JSON.stringify({ entries, lookups, baseline, second_chance: secondChance, max_ratio: Number(ratio.toFixed(2)) }));
