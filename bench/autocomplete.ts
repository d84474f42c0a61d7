/**
 * `npm run bench -- autocomplete [--tags N] [--queries N]`: tag autocomplete on a board of
 * 200,000 tags (bench/autocomplete/board.ts), against the PostgreSQL baseline measured in the
 * same run on the same tags.
 *
 * - Tagwise: the in-memory index (src/search/autocomplete/) loaded from the tags table as the
 *   server loads it, each query answered by `suggest(term, 10)`: prefix, words and typo tiers.
 *   Target: p50 ≤ 0.5 ms.
 * - Baseline: `pg_trgm` similarity over a trigram GIN index on `tags.name` (the extension is
 *   created in the benchmark's own database only): `where name % $1 order by similarity desc,
 *   images_count desc limit 10`, over a loopback connection.
 *
 * - Over HTTP: the same queries to the real application's `/autocomplete/tags` (the rich form
 *   the search page asks for), one at a time over a loopback keep-alive connection. Target:
 *   p50 ≤ 2 ms, p99 ≤ 10 ms.
 *
 * Both answer the same query mix (bench/autocomplete/queries.ts). Prints a table by kind of
 * query, the ratio of the p50s, and ends with one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LiveTagIndex } from '../src/contexts/tags/autocomplete-index.js';
import { EmbeddedEngine } from '../src/search/embedded/public.js';
import { startApp } from './harness/http.js';
import { ascending, percentile } from './harness/stats.js';
import { benchTags, openTagBoard } from './autocomplete/board.js';
import { benchQueries, type BenchQuery } from './autocomplete/queries.js';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
};
const TAGS = arg('tags', 200_000);
const QUERIES = arg('queries', 2000);
const LIMIT = 10;

const log = (m: string) => process.stderr.write(`${m}\n`);
const round = (x: number, digits = 3) => Number(x.toFixed(digits));

async function timed<T>(queries: readonly BenchQuery[], run: (q: BenchQuery) => T | Promise<T>): Promise<{ ms: number[]; answers: T[] }> {
  const ms: number[] = [];
  const answers: T[] = [];
  for (const q of queries) {
    const started = performance.now();
    answers.push(await run(q));
    ms.push(performance.now() - started);
  }
  return { ms, answers };
}

const handle = await openTagBoard(join(here, '.cache'), TAGS, log);
try {
  const sql = handle.db.$client;
  const queries = benchQueries(benchTags(TAGS), QUERIES);

  // Tagwise: the index as the server builds it.
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const buildStarted = performance.now();
  const index = await new LiveTagIndex(handle.db).index();
  const buildMs = performance.now() - buildStarted;
  globalThis.gc?.();
  const heapMb = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  for (const q of queries.slice(0, 200)) index.suggest(q.term, LIMIT); // warm-up
  const ours = await timed(queries, (q) => index.suggest(q.term, LIMIT));

  // Over HTTP: the application as the server runs it.
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-bench-autocomplete-'));
  const server = await startApp(dataDir, handle.db, new EmbeddedEngine());
  const ask = async (term: string) => {
    const res = await fetch(`${server.origin}/api/v1/json/autocomplete/tags?term=${encodeURIComponent(term)}&format=rich&limit=8`);
    return ((await res.json()) as { suggestions: unknown[] }).suggestions;
  };
  for (const q of queries.slice(0, 200)) await ask(q.term); // warm-up
  const http = await timed(queries, (q) => ask(q.term));
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });

  // Baseline: pg_trgm in this database only.
  await sql.unsafe('create extension if not exists pg_trgm');
  await sql.unsafe('create index if not exists bench_tags_name_trgm on tags using gin (name gin_trgm_ops)');
  await sql.unsafe('analyze tags');
  const trgm = (term: string) =>
    sql`select name, images_count from tags where name % ${term} order by similarity(name, ${term}) desc, images_count desc limit ${LIMIT}`;
  for (const q of queries.slice(0, 50)) await trgm(q.term); // warm-up
  const theirs = await timed(queries, (q) => trgm(q.term));

  const stats = (ms: number[]) => {
    const sorted = ascending([...ms]);
    return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
  };
  const kinds = [...new Set(queries.map((q) => q.kind))];
  console.log(`autocomplete on ${TAGS.toLocaleString('en')} tags, ${queries.length} queries, top ${LIMIT}`);
  console.log(`index build ${buildMs.toFixed(0)} ms, heap +${heapMb.toFixed(0)} MiB`);
  console.log('kind            n   tagwise p50/p99 ms   http p50/p99 ms      pg_trgm p50/p99 ms   tagwise found');
  for (const kind of ['all', ...kinds]) {
    const at = queries.flatMap((q, i) => (kind === 'all' || q.kind === kind ? [i] : []));
    const a = stats(at.map((i) => ours.ms[i]!));
    const b = stats(at.map((i) => theirs.ms[i]!));
    const h = stats(at.map((i) => http.ms[i]!));
    const found = at.filter((i) => ours.answers[i]!.length > 0).length / at.length;
    console.log(
      `${kind.padEnd(13)} ${String(at.length).padStart(4)}   ${a.p50.toFixed(3).padStart(7)} / ${a.p99.toFixed(3).padEnd(8)}   ${h.p50.toFixed(3).padStart(7)} / ${h.p99.toFixed(3).padEnd(8)}   ${b.p50.toFixed(3).padStart(7)} / ${b.p99.toFixed(3).padEnd(8)}   ${(found * 100).toFixed(0)}%`,
    );
  }
  const a = stats(ours.ms);
  const b = stats(theirs.ms);
  const h = stats(http.ms);
  const httpMet = h.p50 <= 2 && h.p99 <= 10;
  console.log(`over HTTP: p50 ${h.p50.toFixed(3)} ms, p99 ${h.p99.toFixed(3)} ms; target p50 ≤ 2 ms, p99 ≤ 10 ms: ${httpMet ? 'met' : 'NOT met'}`);
  console.log(`p50: tagwise ${a.p50.toFixed(3)} ms vs pg_trgm ${b.p50.toFixed(3)} ms (${(b.p50 / a.p50).toFixed(0)}× faster); target p50 ≤ 0.5 ms: ${a.p50 <= 0.5 ? 'met' : 'NOT met'}`);
  console.log(
    JSON.stringify({
      bench: 'autocomplete',
      tags: TAGS,
      queries: queries.length,
      tagwise_p50_ms: round(a.p50),
      tagwise_p99_ms: round(a.p99),
      http_p50_ms: round(h.p50),
      http_p99_ms: round(h.p99),
      target_http_met: httpMet,
      pg_trgm_p50_ms: round(b.p50),
      pg_trgm_p99_ms: round(b.p99),
      p50_ratio: round(b.p50 / a.p50, 1),
      build_ms: Math.round(buildMs),
      heap_mib: Math.round(heapMb),
      target_p50_met: a.p50 <= 0.5,
    }),
  );
} finally {
  await handle.close();
}
