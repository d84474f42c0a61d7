/**
 * The million-image part of the reverse-search benchmark: fingerprints generated without files
 * (random 64-bit hashes, and near copies of some of them), written as image documents into an
 * embedded engine, then searched with `searchHashes` through the visibility filter the API uses,
 * against a brute-force scan of the same hashes in typed arrays as the baseline. Both answers are
 * compared on every query.
 */
import { mulberry32 } from '../../src/lib/random.js';
import { popcount32 } from '../../src/lib/popcount.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { chunkTerms } from '../../src/search/hash-chunks.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';
import { visibleImages } from '../../src/search/requests/index.js';
import { ascending, percentile } from '../harness/stats.js';

export interface ScaleFigures {
  images: number;
  buildSeconds: number;
  queries: number;
  engineP50: number;
  engineP99: number;
  scanP50: number;
  scanP99: number;
  meanHits: number;
  mismatches: number;
}

const hex = (hi: number, lo: number) => (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');

/** A copy of the hash with `bits` distinct random bits flipped. */
function flip(rng: () => number, hi: number, lo: number, bits: number): [number, number] {
  const chosen = new Set<number>();
  while (chosen.size < bits) chosen.add(Math.floor(rng() * 64));
  for (const b of chosen) {
    if (b < 32) hi ^= 1 << b;
    else lo ^= 1 << (b - 32);
  }
  return [hi >>> 0, lo >>> 0];
}

export async function runScale(images: number, queries: number, maxDistance: number, log: (m: string) => void): Promise<ScaleFigures> {
  const rng = mulberry32(19);
  const word = () => Math.floor(rng() * 2 ** 32) >>> 0;
  // two hashes per image: phash and chash, as the documents hold them
  const hi = [new Uint32Array(images), new Uint32Array(images)];
  const lo = [new Uint32Array(images), new Uint32Array(images)];
  for (let i = 0; i < images; i++) {
    for (const k of [0, 1]) {
      // one image in ten is a near copy of an earlier one, as re-uploads are
      if (i > 0 && rng() < 0.1) {
        const j = Math.floor(rng() * i);
        const [h, l] = flip(rng, hi[k]![j]!, lo[k]![j]!, Math.floor(rng() * 8));
        hi[k]![i] = h;
        lo[k]![i] = l;
      } else {
        hi[k]![i] = word();
        lo[k]![i] = word();
      }
    }
  }
  const engine = new EmbeddedEngine();
  await engine.ensureIndex({ name: 'images', mapping: imagesMapping });
  const started = performance.now();
  const BATCH = 10_000;
  for (let start = 0; start < images; start += BATCH) {
    const docs = [];
    for (let i = start; i < Math.min(images, start + BATCH); i++) {
      const phash = hex(hi[0]![i]!, lo[0]![i]!);
      const chash = hex(hi[1]![i]!, lo[1]![i]!);
      docs.push({ id: i + 1, approved: true, hidden_from_users: false, phash, chash, phash_chunks: chunkTerms(phash), chash_chunks: chunkTerms(chash) });
    }
    await engine.write('images', docs);
    if ((start / BATCH) % 20 === 19) log(`  wrote ${(start + BATCH).toLocaleString('en')} fingerprints (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  const buildSeconds = (performance.now() - started) / 1000;
  const filter = visibleImages({ filters: [] });

  // Queries: half near copies of stored hashes (0–12 bits off), half random hashes.
  const qs: [number, number, number, number][] = [];
  for (let q = 0; q < queries; q++) {
    if (q % 2 === 0) {
      const i = Math.floor(rng() * images);
      const a = flip(rng, hi[0]![i]!, lo[0]![i]!, Math.floor(rng() * 13));
      const b = flip(rng, hi[1]![i]!, lo[1]![i]!, Math.floor(rng() * 13));
      qs.push([a[0], a[1], b[0], b[1]]);
    } else qs.push([word(), word(), word(), word()]);
  }
  // the first search of each field builds its chunk tables: not a query's latency
  const first = qs[0]!;
  await engine.searchHashes('images', { hashes: [{ field: 'phash', value: hex(first[0], first[1]) }, { field: 'chash', value: hex(first[2], first[3]) }], maxDistance, filter, size: 50 });

  const engineMs: number[] = [];
  const scanMs: number[] = [];
  let hitsTotal = 0;
  let mismatches = 0;
  for (const [ph, pl, ch, cl] of qs) {
    let t = performance.now();
    const found = await engine.searchHashes('images', {
      hashes: [
        { field: 'phash', value: hex(ph, pl) },
        { field: 'chash', value: hex(ch, cl) },
      ],
      maxDistance,
      filter,
      size: 50,
    });
    engineMs.push(performance.now() - t);
    t = performance.now();
    let count = 0;
    const h0 = hi[0]!, l0 = lo[0]!, h1 = hi[1]!, l1 = lo[1]!;
    for (let i = 0; i < images; i++) {
      const d = Math.min(popcount32((h0[i]! ^ ph) >>> 0) + popcount32((l0[i]! ^ pl) >>> 0), popcount32((h1[i]! ^ ch) >>> 0) + popcount32((l1[i]! ^ cl) >>> 0));
      if (d <= maxDistance) count++;
    }
    scanMs.push(performance.now() - t);
    hitsTotal += found.total;
    if (count !== found.total) mismatches++;
  }
  ascending(engineMs);
  ascending(scanMs);
  return {
    images,
    buildSeconds,
    queries,
    engineP50: percentile(engineMs, 0.5),
    engineP99: percentile(engineMs, 0.99),
    scanP50: percentile(scanMs, 0.5),
    scanP99: percentile(scanMs, 0.99),
    meanHits: hitsTotal / queries,
    mismatches,
  };
}
