/**
 * `npm run bench -- reverse [--board N] [--distractors N] [--queries N] [--low-detail N] [--scale N] [--scale-queries N]`:
 * the reverse-search acceptance benchmark.
 *
 * 1. A board of N procedurally drawn pictures (default 1,000; bench/reverse/pictures.ts) stored as
 *    processing stores them (intensities and fingerprints from one decode) in an embedded
 *    PostgreSQL, indexed into an embedded engine by the real indexer.
 * 2. For `--queries` board pictures (default 200, spread over the board), each transformed copy
 *    (bench/reverse/transforms.ts: rescaled, recompressed, trimmed, brightened, watermarked,
 *    combinations, grey, mirrored, turned a quarter, 10 % cut off two sides) is searched at the default distance (0.25) with the reference's intensity method
 *    (`intensityMatches`, the SQL the reference runs) and with the new search (`reverseSearch`, what
 *    POST /search/reverse runs, through the visibility filter): recall@1 per transform, side by side.
 *    Low-detail pictures (four flat quadrants, 1200×900, `--low-detail` of them, default 20) are
 *    on the board too, searched with the identical file and with a copy at a quarter of the size.
 * 3. Distractors, pictures drawn from another seed range and not on the board (default 200), are
 *    searched the same way: the false-positive rate is the share that finds anything.
 * 4. Latency of each method's search (the key computation of the query file excluded, the same for
 *    both): p50/p99 over every query.
 * 5. A board of `--scale` fingerprints generated without files (default 1,000,000; see
 *    bench/reverse/scale.ts): `searchHashes` at the default threshold against a brute-force scan
 *    of the same hashes, p50/p99 and speedup, both answers compared.
 * Targets: recall@1 ≥ 0.95 on each transform, false positives ≤ 1 %, scale p50 ≤ 5 ms and
 * p99 ≤ 25 ms. The last line is one JSON object with the headline figures.
 */
import sharp from 'sharp';
import { DEFAULT_DISTANCE, hammingThreshold, intensityMatches, reverseSearch, searchKeyOf, turnedThreshold, type SearchKey } from '../src/contexts/images/reverse-search.js';
import { table } from '../src/lib/table.js';
import { visibleImages } from '../src/search/requests/index.js';
import { ascending, loadAverage, percentile } from './harness/stats.js';
import { buildPictureBoard } from './reverse/board.js';
import { drawPicture, LOW_DETAIL_SEEDS, type Picture } from './reverse/pictures.js';
import { runScale } from './reverse/scale.js';
import { TRANSFORMS } from './reverse/transforms.js';

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} needs a whole number`);
  return value;
}

const log = (m: string) => console.log(m);
const boardSize = option('board', 1000);
const distractorCount = option('distractors', 200);
const queryCount = Math.min(boardSize, option('queries', 200));
const lowDetailCount = option('low-detail', 20);
const scaleImages = option('scale', 1_000_000);
const scaleQueries = option('scale-queries', 400);
const DISTRACTOR_SEEDS = 1_000_000;

log(`reverse search: board ${boardSize}, ${queryCount} queried pictures × ${TRANSFORMS.length} transforms, ${distractorCount} distractors; load ${loadAverage()}`);
const lowDetailSeeds = Array.from({ length: lowDetailCount }, (_, k) => LOW_DETAIL_SEEDS + k);
const board = await buildPictureBoard([...Array.from({ length: boardSize }, (_, k) => k + 1), ...lowDetailSeeds], log);
const deps = { db: board.handle.db, engine: board.engine };
const visible = visibleImages({ filters: [] });

interface Answer {
  referenceTop: number | undefined;
  referenceAny: boolean;
  newTop: number | undefined;
  newAny: boolean;
}

const referenceMs: number[] = [];
const newMs: number[] = [];

async function ask(key: SearchKey): Promise<Answer> {
  let t = performance.now();
  const reference = await intensityMatches(deps.db, key, DEFAULT_DISTANCE);
  referenceMs.push(performance.now() - t);
  t = performance.now();
  const found = await reverseSearch(deps, { key, distance: DEFAULT_DISTANCE, visible });
  newMs.push(performance.now() - t);
  return { referenceTop: reference[0], referenceAny: reference.length > 0, newTop: found.ids[0], newAny: found.ids.length > 0 };
}

async function keyOf(bytes: Buffer): Promise<SearchKey> {
  const key = await searchKeyOf(bytes);
  if (key === null) throw new Error('a query picture could not be analysed');
  return key;
}

// 2. transformed copies of board pictures
const step = boardSize / queryCount;
const queried = Array.from({ length: queryCount }, (_, k) => board.pictures[Math.floor(k * step)]!);
const hits = new Map(TRANSFORMS.map((t) => [t.name, { reference: 0, new: 0 }]));
const started = performance.now();
for (const [n, picture] of queried.entries()) {
  const expected = board.idOf.get(picture.seed)!;
  for (const transform of TRANSFORMS) {
    const answer = await ask(await keyOf(await transform.apply(picture)));
    const h = hits.get(transform.name)!;
    if (answer.referenceTop === expected) h.reference++;
    if (answer.newTop === expected) h.new++;
  }
  if ((n + 1) % 50 === 0) log(`  queried ${n + 1}/${queryCount} pictures (${((performance.now() - started) / 1000).toFixed(0)} s)`);
}

// low-detail pictures: the identical file, and a copy at a quarter of the size
const LOW_DETAIL_CASES = [
  { name: 'low detail: identical file', apply: (p: Picture) => Promise.resolve(p.png) },
  { name: 'low detail: 25% (300×225)', apply: (p: Picture) => sharp(p.png).resize(Math.round(p.width / 4), Math.round(p.height / 4)).png().toBuffer() },
];
const lowDetailHits = new Map(LOW_DETAIL_CASES.map((c) => [c.name, { reference: 0, new: 0 }]));
for (const seed of lowDetailSeeds) {
  const picture = board.pictures.find((p) => p.seed === seed)!;
  for (const c of LOW_DETAIL_CASES) {
    const answer = await ask(await keyOf(await c.apply(picture)));
    const h = lowDetailHits.get(c.name)!;
    if (answer.referenceTop === board.idOf.get(seed)) h.reference++;
    if (answer.newTop === board.idOf.get(seed)) h.new++;
  }
}

// 3. distractors
let referenceFalse = 0;
let newFalse = 0;
for (let k = 0; k < distractorCount; k++) {
  const answer = await ask(await keyOf((await drawPicture(DISTRACTOR_SEEDS + k)).png));
  if (answer.referenceAny) referenceFalse++;
  if (answer.newAny) newFalse++;
}
await board.close();

const rate = (x: number, n: number) => (n === 0 ? 0 : x / n);
const f3 = (x: number) => x.toFixed(3);
const rows = TRANSFORMS.map((t) => {
  const h = hits.get(t.name)!;
  return [t.name, f3(rate(h.reference, queryCount)), f3(rate(h.new, queryCount))];
});
const allReference = [...hits.values()].reduce((s, h) => s + h.reference, 0);
const allNew = [...hits.values()].reduce((s, h) => s + h.new, 0);
const queriesAll = queryCount * TRANSFORMS.length;
rows.push(['all transforms', f3(rate(allReference, queriesAll)), f3(rate(allNew, queriesAll))]);
for (const [name, h] of lowDetailHits) rows.push([name, f3(rate(h.reference, lowDetailCount)), f3(rate(h.new, lowDetailCount))]);
rows.push(['false positives (distractors)', f3(rate(referenceFalse, distractorCount)), f3(rate(newFalse, distractorCount))]);
ascending(referenceMs);
ascending(newMs);
const ms = (x: number) => `${x.toFixed(2)} ms`;
rows.push(['latency p50', ms(percentile(referenceMs, 0.5)), ms(percentile(newMs, 0.5))]);
rows.push(['latency p99', ms(percentile(referenceMs, 0.99)), ms(percentile(newMs, 0.99))]);
log('');
log(`recall@1 at distance ${DEFAULT_DISTANCE} (${queryCount} pictures per transform; new: Hamming ≤ ${hammingThreshold(DEFAULT_DISTANCE)} of 64, turned and region hashes ≤ ${turnedThreshold(DEFAULT_DISTANCE)})`);
log(table(['', 'reference (intensities)', 'new (fingerprints)'], rows));

// 5. a million fingerprints
log('');
log(`${scaleImages.toLocaleString('en')} fingerprints without files, ${scaleQueries} queries at Hamming ≤ ${hammingThreshold(DEFAULT_DISTANCE)}; load ${loadAverage()}`);
const scale = await runScale(scaleImages, scaleQueries, hammingThreshold(DEFAULT_DISTANCE), log);
log(
  table(
    ['', 'p50', 'p99'],
    [
      ['engine searchHashes', ms(scale.engineP50), ms(scale.engineP99)],
      ['brute-force scan (baseline)', ms(scale.scanP50), ms(scale.scanP99)],
    ],
  ),
);
log(`speedup at p50 ${(scale.scanP50 / scale.engineP50).toFixed(1)}×; ${scale.meanHits.toFixed(2)} matches per query; answers differing from the scan: ${scale.mismatches}; documents written in ${scale.buildSeconds.toFixed(1)} s`);

console.log(
  JSON.stringify({
    bench: 'reverse',
    board: boardSize,
    queries: queriesAll,
    distractors: distractorCount,
    recall_at_1_reference: Number(f3(rate(allReference, queriesAll))),
    recall_at_1_new: Number(f3(rate(allNew, queriesAll))),
    recall_at_1_new_by_transform: Object.fromEntries([...hits, ...lowDetailHits].map(([name, h]) => [name, Number(f3(rate(h.new, name.startsWith('low detail') ? lowDetailCount : queryCount)))])),
    false_positive_rate_reference: Number(f3(rate(referenceFalse, distractorCount))),
    false_positive_rate_new: Number(f3(rate(newFalse, distractorCount))),
    latency_ms_reference: { p50: Number(percentile(referenceMs, 0.5).toFixed(2)), p99: Number(percentile(referenceMs, 0.99).toFixed(2)) },
    latency_ms_new: { p50: Number(percentile(newMs, 0.5).toFixed(2)), p99: Number(percentile(newMs, 0.99).toFixed(2)) },
    scale_images: scale.images,
    scale_engine_ms: { p50: Number(scale.engineP50.toFixed(3)), p99: Number(scale.engineP99.toFixed(3)) },
    scale_scan_ms: { p50: Number(scale.scanP50.toFixed(3)), p99: Number(scale.scanP99.toFixed(3)) },
    scale_speedup_p50: Number((scale.scanP50 / scale.engineP50).toFixed(1)),
    scale_mismatches: scale.mismatches,
  }),
);
