/**
 * `npm run bench -- engine-cache [--images N] [--seconds S] [--requests R] [--writes W]`: the
 * embedded engine's answers kept across writes (src/search/embedded/result-cache.ts).
 *
 * Opens the engine snapshot of the bulk board `bench/.cache/board-<N>/index` (built by
 * `npm run bench -- search` or `-- load --bulk N`; read only: nothing here flushes) twice: one
 * engine keeping answers, one keeping none (its filter sets are patched by writes all the same).
 * A fixed pool of R image searches (default 2,000) as `/search/images` builds them, from the
 * kinds clients send (one to three tags, OR, negation, score and width ranges, prefix and infix
 * wildcards, `*`, fixed and relative dates; sorted by any field, random with and without a
 * seed; pages 1–5; the Default filter or none), is asked at random, back to back, for S seconds
 * per phase: read only, then with W writes a second (default 1), each adding a popular tag to
 * an image or taking it off (as the writes of `npm run bench -- load`). Both engines run each phase in the same run, one after the other, after one pass
 * over the pool to warm them. Figures: searches/s, their ratio (kept / not kept), and the time
 * of a write (the engine's write plus, with answers kept, dropping those it concerns). The last
 * line is one JSON object.
 */
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type CompileOptions } from '../grammar/index.js';
import { compileQuery } from '../grammar/compiler.js';
import { mulberry32 } from '../src/lib/random.js';
import { EmbeddedEngine } from '../src/search/embedded/index.js';
import type { IndexDocument, SearchRequest } from '../src/search/engine.js';
import { imageFields } from '../src/search/indexes/images/fields.js';
import { answerKey } from '../src/search/embedded/result-cache.js';
import { buildImageSearch, parseImageSort, type HiddenByFilter } from '../src/search/requests/index.js';
import { ascending, cpuMs, loadAverage, mean, percentile } from './harness/stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const log = (m: string) => process.stderr.write(`${m}\n`);

const { values } = parseArgs({
  options: {
    images: { type: 'string', default: '1000000' },
    seconds: { type: 'string', default: '10' },
    requests: { type: 'string', default: '2000' },
    writes: { type: 'string', default: '1' },
  },
});
const images = Number(values.images);
const seconds = Number(values.seconds);
const poolSize = Number(values.requests);
const writesPerSecond = Number(values.writes);

const pick = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

interface Tag {
  id: number;
  name: string;
}

/** The board's tags, most used first, and the Default filter's hidden tag ids. */
async function boardFacts(engine: EmbeddedEngine): Promise<{ tags: Tag[]; hidden: number[] }> {
  const top = await engine.search('tags', { query: { match_all: {} }, sort: [{ images: 'desc' }], size: 300 });
  const docs = await engine.get('tags', top.ids);
  const tags = top.ids.map((id) => ({ id, name: String(docs.get(id)?.name ?? '') })).filter((t) => t.name !== '' && !/[(),"*?\\]/.test(t.name));
  // the system filters are few; the seeder names the default one `default`
  const system = await engine.search('filters', { query: { term: { system: true } }, size: 50 });
  const filter = [...(await engine.get('filters', system.ids)).values()].find((f) => String(f.name).toLowerCase() === 'default');
  const hidden = Array.isArray(filter?.hidden_tag_ids) ? filter.hidden_tag_ids.map(Number) : [];
  return { tags, hidden };
}

/** The pool of searches, as `/search/images` builds them. */
function requestPool(tagList: Tag[], hidden: number[]): SearchRequest[] {
  const tags = tagList.map((t) => t.name);
  const rnd = mulberry32(20_261_126);
  const options: CompileOptions = { fields: imageFields, role: 'anonymous', context: { userId: null, filters: () => undefined } };
  const popular = tags.slice(0, 60);
  const shapes: ((a: string, b: string, c: string) => string)[] = [
    (a) => a,
    (a, b) => `${a}, ${b}`,
    (a, b, c) => `${a}, ${b}, ${c}`,
    (a, b, c) => `${a} || ${b} || ${c}`,
    (a, b) => `${a}, -${b}`,
    (a, b, c) => `(${a} || ${b}), -${c}`,
    (a) => `${a}, score.gt:${Math.floor(rnd() * 20)}`,
    (a) => `${a.replace(/[^a-z]/g, '').slice(0, 2) || 's'}*`,
    (a) => `*${a.replace(/[^a-z]/g, '').slice(0, 2) || 's'}*`,
    () => `width.gte:${pick(rnd, [300, 600, 1000])}`,
    (a) => `aspect_ratio.gt:1, ${a}`,
    () => `created_at.gte:${pick(rnd, ['2020-01-01', '2023-01-01', '3 years ago'])}`,
    () => 'faves.gte:1 || upvotes.gte:5',
    () => '*',
  ];
  const sortFields = ['', 'score', 'created_at', 'first_seen_at', 'wilson_score', 'faves', 'width', 'tag_count', 'random', 'random:7', 'id'];
  const pool: SearchRequest[] = [];
  while (pool.length < poolSize) {
    const q = pick(rnd, shapes)(pick(rnd, popular), pick(rnd, tags), pick(rnd, tags));
    const sort = parseImageSort(pick(rnd, sortFields) || undefined, pick(rnd, ['asc', 'desc']));
    const filters: HiddenByFilter[] = rnd() < 0.5 ? [{ tagIds: hidden, complex: { match_none: {} } }] : [];
    const perPage = pick(rnd, [15, 25, 50]);
    const page = rnd() < 0.6 ? 1 : 1 + Math.floor(rnd() * 5);
    pool.push(buildImageSearch({ query: compileQuery(q, options), sort, filters, page, perPage }));
  }
  return pool;
}

/**
 * One image's tags changed as a tagger's edit changes them (the writes of `npm run bench -- load`):
 * a popular tag added or taken off, with the tag count.
 */
async function changeOneImage(engine: EmbeddedEngine, rnd: () => number, tags: Tag[]): Promise<IndexDocument[]> {
  const id = 1 + Math.floor(rnd() * images);
  const doc = (await engine.get('images', [id])).get(id);
  if (!doc) return [];
  const names = Array.isArray(doc.tags) ? (doc.tags as string[]).slice() : [];
  const ids = Array.isArray(doc.tag_ids) ? (doc.tag_ids as unknown[]).slice() : [];
  const tag = pick(rnd, tags.slice(0, 20));
  const at = names.indexOf(tag.name);
  if (at >= 0) {
    names.splice(at, 1);
    const k = ids.findIndex((x) => Number(x) === tag.id);
    if (k >= 0) ids.splice(k, 1);
  } else {
    names.push(tag.name);
    ids.push(tag.id);
  }
  return [{ ...doc, tags: names, tag_ids: ids, tag_count: names.length }];
}

interface PhaseFigures {
  searchesPerSecond: number;
  /** Answers kept at the end, and dropped by the phase's writes. */
  kept: number;
  dropped: number;
  /** Queries the writes' checks ran (each on the written document). */
  checkRuns: number;
  /** Answers a write concerned that stayed (the document moved past their page), their totals set right. */
  patched: number;
  cpuMsPerSearch: number;
  writes: number;
  writeMsP50: number;
  writeMsMean: number;
  writeCpuMsMean: number;
  writeMsMax: number;
}

async function phase(engine: EmbeddedEngine, pool: SearchRequest[], tags: Tag[], wps: number, seed: number): Promise<PhaseFigures> {
  const before = engine.keptAnswers();
  const rnd = mulberry32(seed);
  const writeRnd = mulberry32(seed + 1);
  const writeMs: number[] = [];
  const t0 = performance.now();
  const c0 = cpuMs();
  const end = t0 + seconds * 1000;
  let nextWrite = wps > 0 ? t0 + 1000 / wps : Infinity;
  let searches = 0;
  let writeCpu = 0;
  let now = t0;
  while (now < end) {
    if (now >= nextWrite) {
      const docs = await changeOneImage(engine, writeRnd, tags);
      const w0 = performance.now();
      const wc0 = cpuMs();
      await engine.write('images', docs);
      writeMs.push(performance.now() - w0);
      writeCpu += cpuMs() - wc0;
      nextWrite += 1000 / wps;
    }
    await engine.search('images', pool[Math.floor(rnd() * pool.length)]!);
    searches++;
    now = performance.now();
  }
  const elapsed = (now - t0) / 1000;
  const sorted = ascending(writeMs);
  const after = engine.keptAnswers();
  return {
    searchesPerSecond: Math.round(searches / elapsed),
    kept: after.entries,
    dropped: after.dropped - before.dropped,
    checkRuns: after.checkRuns - before.checkRuns,
    patched: after.patched - before.patched,
    cpuMsPerSearch: Number(((cpuMs() - c0 - writeCpu) / searches).toFixed(4)),
    writes: writeMs.length,
    writeMsP50: Number((sorted.length ? percentile(sorted, 0.5) : 0).toFixed(3)),
    writeMsMean: Number((writeMs.length ? mean(writeMs) : 0).toFixed(3)),
    writeCpuMsMean: Number((writeMs.length ? writeCpu / writeMs.length : 0).toFixed(3)),
    writeMsMax: Number((sorted.length ? percentile(sorted, 1) : 0).toFixed(3)),
  };
}

async function main(): Promise<void> {
  const dataDir = join(here, '.cache', `board-${images}`);
  log(`load ${loadAverage()}; opening ${dataDir}/index twice (read only)`);
  const kept = new EmbeddedEngine({ dataDir });
  const none = new EmbeddedEngine({ dataDir, resultCache: false });
  await kept.open();
  await none.open();
  const count = await kept.count('images');
  if (count === 0) throw new Error(`no images in ${dataDir}/index: build the board with npm run bench -- search`);
  const { tags, hidden } = await boardFacts(kept);
  const pool = requestPool(tags, hidden);
  const cacheable = pool.filter((r) => answerKey(r) !== null).length;
  log(`${count} images; ${pool.length} searches in the pool, ${cacheable} of them may be kept; ${hidden.length} tags hidden by Default`);
  for (const engine of [none, kept]) for (const r of pool) await engine.search('images', r);

  const figures: Record<string, PhaseFigures> = {};
  for (const [label, wps] of [['read only', 0], ['writes', writesPerSecond]] as const) {
    for (const [name, engine] of [['none', none], ['kept', kept]] as const) {
      log(`phase ${label}, answers ${name} (load ${loadAverage()})`);
      figures[`${label === 'read only' ? 'read' : 'write'}_${name}`] = await phase(engine, pool, tags, wps, 7);
    }
  }
  const rows = Object.entries(figures).map(([k, f]) => `${k.padEnd(12)} ${String(f.searchesPerSecond).padStart(8)}/s  kept ${f.kept}  dropped ${f.dropped}  patched ${f.patched}  check runs ${f.checkRuns}  cpu ${f.cpuMsPerSearch} ms/search  writes ${f.writes}  write ms p50 ${f.writeMsP50} mean ${f.writeMsMean} max ${f.writeMsMax} cpu ${f.writeCpuMsMean}`);
  console.log(rows.join('\n'));
  const ratioRead = figures.read_kept!.searchesPerSecond / figures.read_none!.searchesPerSecond;
  const ratioWrite = figures.write_kept!.searchesPerSecond / figures.write_none!.searchesPerSecond;
  console.log(`searches/s with answers kept vs none: ${ratioRead.toFixed(2)}× read only, ${ratioWrite.toFixed(2)}× with ${writesPerSecond} write/s`);
  console.log(
    JSON.stringify({
      bench: 'engine-cache',
      images: count,
      pool: pool.length,
      cacheable,
      seconds,
      writesPerSecond,
      ratioReadOnly: Number(ratioRead.toFixed(2)),
      ratioWithWrites: Number(ratioWrite.toFixed(2)),
      ...figures,
      load: loadAverage(),
    }),
  );
}

await main();
