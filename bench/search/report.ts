/**
 * The search benchmark's report: the board, the reindex, the query mix against the SQL baseline,
 * OpenSearch beside the embedded engine, the HTTP runs, each with its targets, and a last line
 * of one JSON object with the headline figures.
 */
import type { DriverResult } from '../harness/driver.js';
import { ascending, mean, ms, percentile } from '../harness/stats.js';
import { table } from '../../src/lib/table.js';
import type { HttpFigures } from './http-phase.js';
import { type Mix, PER_PAGE } from './mix.js';
import type { OpenSearchSide } from './opensearch.js';
import { type SearchBenchOptions, TARGETS } from './options.js';
import type { KindStats } from './queries.js';

/** One row of the HTTP table. */
const httpRow = (target: string, r: DriverResult, cpuPerReq: number | undefined, pgCpuPerReq: number | undefined): string[] => [
  target,
  String(r.requests),
  r.rps.toFixed(0),
  ms(r.p50),
  ms(r.p90),
  ms(r.p99),
  String(r.errors),
  ms(cpuPerReq),
  ms(pgCpuPerReq),
  ms(r.cpuMs / r.allRequests),
];
/** The row with the connection count after its label. */
const withConnections = (row: string[], connections: number): string[] => [row[0]!, String(connections), ...row.slice(1)];

export interface ReindexFigures {
  docs: number;
  reindexS: number;
  reindexCpuS: number;
  reindexPgCpuS: number | undefined;
  writeMs: number;
  writeCpuMs: number;
  indexRssMb: number;
  heapMb: number;
  offHeapMb: number;
  structuresMb: number;
  /** engine.byteSizes(images): bytes by structure. */
  structures: Map<string, number>;
  /** A full garbage collection after the build, ms. */
  fullGcMs: number;
  rssAfterMb: number;
}

export interface SearchBenchReport {
  o: SearchBenchOptions;
  counts: { images: number; tags: number; taggings: number };
  board: { dir: string; buildSeconds: number; reused: boolean; builtAt?: string };
  /** Seconds to build the baseline table, null when reused. */
  baselineBuild: number | null;
  reindex: ReindexFigures;
  loads: Record<string, string>;
  hiddenTagIds: number[];
  mix: Mix;
  kinds: KindStats[];
  allEngineCpu: number[];
  p50: number;
  p99: number;
  bp50: number;
  bp99: number;
  pgCpuPerQuery: number;
  opensearch: OpenSearchSide | undefined;
  osAll: number[];
  http: HttpFigures | undefined;
}

/** The `n` largest structures as `name size, …` in MB. */
function largest(sizes: Map<string, number>, n: number): string {
  return [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, bytes]) => `${name} ${(bytes / 1024 / 1024).toFixed(0)}`)
    .join(', ');
}

export function printReport(report: SearchBenchReport): void {
  printBoardAndReindex(report);
  printQueryMix(report);
  printOpenSearchSide(report);
  printHttp(report);
  printJsonLine(report);
}

/** A target's verdict. */
const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');

/** Every OpenSearch time with its request cache off, in ascending order. */
const uncachedTimes = (report: SearchBenchReport) => ascending(report.opensearch?.kinds.flatMap((k) => k.uncached) ?? []);

/** The board, and the reindex into a fresh embedded engine with its time and memory. */
function printBoardAndReindex(report: SearchBenchReport): void {
  const { counts, board, baselineBuild, loads } = report;
  const { docs, reindexS, reindexCpuS, reindexPgCpuS, writeMs, writeCpuMs, indexRssMb, heapMb, offHeapMb, structuresMb, rssAfterMb } = report.reindex;
  console.log(`\n== board`);
  console.log(
    `images ${counts.images.toLocaleString('en')}, tags ${counts.tags.toLocaleString('en')}, taggings ${counts.taggings.toLocaleString('en')} ` +
      `(${board.dir})`,
  );
  console.log(
    `build ${board.buildSeconds.toFixed(1)} s${board.reused ? ` (cached board, built ${board.builtAt})` : ''}; ` +
      `baseline table ${baselineBuild === null ? 'reused' : `built in ${baselineBuild.toFixed(1)} s`} (not targets)`,
  );
  console.log(`\n== reindex into a fresh in-memory embedded engine`);
  console.log(
    table(
      ['figure', 'value', 'target'],
      [
        ['documents', docs.toLocaleString('en'), ''],
        ['reindex_s (wall)', reindexS.toFixed(1), `≤ ${TARGETS.reindexS} s: ${mark(reindexS <= TARGETS.reindexS)}`],
        ['  documents/s', Math.round(docs / reindexS).toLocaleString('en'), ''],
        ['  CPU of this process, s', reindexCpuS.toFixed(1), ''],
        ['    of which engine.write, s', `${(writeCpuMs / 1000).toFixed(1)} (wall ${(writeMs / 1000).toFixed(1)})`, ''],
        ['    loading documents (rest), s', ((reindexCpuS * 1000 - writeCpuMs) / 1000).toFixed(1), ''],
        ['  CPU of PostgreSQL, s', reindexPgCpuS === undefined ? '-' : reindexPgCpuS.toFixed(1), ''],
        ['index_rss_mb (RSS growth after GC)', indexRssMb.toFixed(0), `≤ ${TARGETS.rssMb} MB: ${mark(indexRssMb <= TARGETS.rssMb)}`],
        ['  heap used growth, MB', heapMb.toFixed(0), ''],
        ['  external (array buffers) growth, MB', offHeapMb.toFixed(0), ''],
        ['  engine.byteSize(images), MB', structuresMb.toFixed(0), ''],
        ['  RSS after, MB', rssAfterMb.toFixed(0), ''],
        ['  RSS growth not in the structures, MB', (indexRssMb - structuresMb).toFixed(0), ''],
        ['  a full garbage collection after it, ms', report.reindex.fullGcMs.toFixed(0), ''],
      ],
    ),
  );
  console.log(`largest structures, MB: ${largest(report.reindex.structures, 12)}`);
  console.log(`load average at reindex start: ${loads.reindex}`);
}

/** The query mix: each kind against the SQL baseline, with the targets. */
function printQueryMix(report: SearchBenchReport): void {
  const { o, loads, hiddenTagIds, mix, kinds, allEngineCpu, p50, p99, bp50, bp99, pgCpuPerQuery } = report;
  console.log(`\n== query mix (Default filter hides tag ids ${hiddenTagIds.join(', ')}; first page of ${PER_PAGE} unless noted)`);
  console.log(
    `popular tags: ${mix.popular.slice(0, 4).map((t) => `${t.name} (${t.count})`).join(', ')}, …; mid-frequency: ` +
      `${mix.mid.slice(0, 3).map((t) => `${t.name} (${t.count})`).join(', ')}, …; score.gte:${mix.scoreThreshold} matches ` +
      `${(mix.scoreShare * 100).toFixed(1)} % of images`,
  );
  console.log(
    `engine: ${o.runs} runs per kind over ${o.variants} variants after a warm-up, time = compile text + wrap + engine.search; ` +
      `baseline: ${o.baselineRuns} runs per kind, one SQL statement (exact count + page) over a local connection`,
  );
  const rows = kinds.map((k) => {
    const e50 = percentile(k.engine, 0.5);
    const b50 = percentile(k.baseline, 0.5);
    return [
      k.kind,
      Math.round(k.hitsMean).toLocaleString('en'),
      ms(e50),
      ms(percentile(k.engine, 0.99)),
      ms(percentile(k.engineCpu, 0.5)),
      ms(percentile(k.engineCpu, 0.99)),
      ms(Math.max(...k.first)),
      ms(b50, 1),
      ms(percentile(k.baseline, 0.99), 1),
      ms(k.baselinePgCpuPerQuery, 1),
      `${(b50 / e50).toFixed(1)}×`,
      `${k.sameTotal}/${k.compared}`,
      `${k.sameIds}/${k.compared}${k.idsNote}`,
    ];
  });
  rows.push([
    'whole mix',
    '',
    ms(p50),
    ms(p99),
    ms(percentile(allEngineCpu, 0.5)),
    ms(percentile(allEngineCpu, 0.99)),
    ms(Math.max(...kinds.flatMap((k) => k.first))),
    ms(bp50, 1),
    ms(bp99, 1),
    ms(pgCpuPerQuery, 1),
    `${(bp50 / p50).toFixed(1)}×`,
    `${kinds.reduce((s, k) => s + k.sameTotal, 0)}/${kinds.reduce((s, k) => s + k.compared, 0)}`,
    `${kinds.reduce((s, k) => s + k.sameIds, 0)}/${kinds.reduce((s, k) => s + k.compared, 0)}`,
  ]);
  console.log(
    table(
      ['query kind', 'mean hits', 'p50 ms', 'p99 ms', 'cpu p50', 'cpu p99', 'first max', 'SQL p50', 'SQL p99', 'PG cpu/q', 'speedup', 'same total', 'same ids'],
      rows,
    ),
  );
  for (const k of kinds) console.log(`  e.g. ${k.kind}: ${k.example}`);
  console.log(
    '  SQL of a wildcard: images with any matching tag, one GIN lookup per tag (tag_ids && array_agg(matching ids) ' +
      'did not finish in 60 s on 100,000 images for art*, see bench/search/mix.ts); random order in SQL is md5(id || seed), ' +
      'so its pages are checked against the engine\'s own random function instead',
  );
  console.log(
    `engine p50 ${ms(p50)} ms (target ≤ ${TARGETS.p50}: ${mark(p50 <= TARGETS.p50)}), p99 ${ms(p99)} ms (target ≤ ${TARGETS.p99}: ${mark(p99 <= TARGETS.p99)}), ` +
      `speedup at p50 ${(bp50 / p50).toFixed(1)}× (target ≥ ${TARGETS.speedup}: ${mark(bp50 / p50 >= TARGETS.speedup)}); ` +
      `CPU per query: engine mean ${ms(mean(allEngineCpu))} ms, PostgreSQL mean ${ms(pgCpuPerQuery, 1)} ms`,
  );
  console.log(`load average: queries start ${loads.queries}, end ${loads.queriesEnd}`);
}

/** OpenSearch beside the embedded engine, when it was measured. */
function printOpenSearchSide(report: SearchBenchReport): void {
  const { o, loads, kinds, p50, p99, opensearch, osAll } = report;
  const { docs, reindexS } = report.reindex;
  const osUncached = uncachedTimes(report);
  if (opensearch) {
    console.log(
      `\n== OpenSearch at ${o.opensearchUrl} beside the embedded engine (same images, same indexer, same mix; ` +
        `reindex ${opensearch.docs} docs in ${opensearch.reindexS.toFixed(1)} s = ${(opensearch.docs / opensearch.reindexS).toFixed(0)} docs/s, ` +
        `embedded ${docs} docs in ${reindexS.toFixed(1)} s = ${(docs / reindexS).toFixed(0)} docs/s)`,
    );
    console.log(
      table(
        ['query kind', 'embedded p50', 'embedded p99', 'OpenSearch p50', 'OpenSearch p99', 'uncached p50', 'uncached p99', 'same total', 'same ids'],
        opensearch.kinds.map((k) => {
          const mine = kinds.find((x) => x.kind === k.kind)!;
          return [
            k.kind,
            ms(percentile(mine.engine, 0.5)),
            ms(percentile(mine.engine, 0.99)),
            ms(percentile(k.times, 0.5)),
            ms(percentile(k.times, 0.99)),
            ms(percentile(k.uncached, 0.5)),
            ms(percentile(k.uncached, 0.99)),
            `${k.sameTotal}/${k.compared}`,
            k.kind.startsWith('random') ? 'own order' : `${k.sameIds}/${k.compared}`,
          ];
        }),
      ),
    );
    console.log(
      `all kinds: embedded p50 ${ms(p50)} ms, p99 ${ms(p99)} ms; OpenSearch p50 ${ms(percentile(osAll, 0.5))} ms, p99 ${ms(percentile(osAll, 0.99))} ms, ` +
        `with its request cache off p50 ${ms(percentile(osUncached, 0.5))} ms, p99 ${ms(percentile(osUncached, 0.99))} ms ` +
        `(sequential, one query at a time, HTTP round trip on loopback included); load average: start ${loads.opensearch}, end ${loads.opensearchEnd}`,
    );
  }
}

/** The search endpoint over HTTP against the bare Hono ceiling, when it was measured. */
function printHttp(report: SearchBenchReport): void {
  const { o, loads, http } = report;
  const headline = http?.runs[0];
  if (http && headline) {
    console.log(
      `\n== HTTP (the engine on its own thread, as npm start runs it, filled by a reindex of ${http.reindexS.toFixed(1)} s; ` +
        `keep-alive connections as listed, ${o.seconds} s after 2 s warm-up each, driver in a child process)`,
    );
    console.log(
      table(
        ['target', 'connections', 'requests', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'non-2xx', 'server cpu/req ms', 'PG cpu/req ms', 'driver cpu/req ms'],
        http.runs.flatMap((r) => [
          withConnections(httpRow('GET /api/v1/json/search/images (mix)', r.app, r.appCpuPerReq, r.appPgCpuPerReq), r.connections),
          withConnections(httpRow('bare Hono JSON (ceiling)', r.ceiling, r.ceilingCpuPerReq, undefined), r.connections),
        ]),
      ),
    );
    const half = http.halfLoad;
    console.log(
      `at half that load (${half.rate} requests/s offered over ${half.connections} connections, open loop, latency from each request's due time): ` +
        `${half.result.rps.toFixed(0)} req/s answered, p50 ${ms(half.result.p50)} ms, p90 ${ms(half.result.p90)} ms, p99 ${ms(half.result.p99)} ms, non-2xx ${half.result.errors}`,
    );
    const { p50: hp50, p99: hp99 } = headline.app;
    console.log(
      `endpoint at ${headline.connections} connections: p50 ${ms(hp50)} ms (target ≤ ${TARGETS.p50}: ${mark(hp50 <= TARGETS.p50)}), ` +
        `p99 ${ms(hp99)} ms (target ≤ ${TARGETS.p99}: ${mark(hp99 <= TARGETS.p99)}), ${(headline.app.rps / headline.ceiling.rps).toFixed(3)} of the ceiling's requests/s; ` +
        `answers equal to the engine's: ${http.agreed}/${http.checked} kinds; load average: start ${loads.http}, end ${loads.httpEnd}`,
    );
  }
}

/** The headline figures as one JSON line. */
function printJsonLine(report: SearchBenchReport): void {
  const { counts, p50, p99, bp50, bp99, opensearch, osAll, http } = report;
  const { docs, reindexS, indexRssMb, structuresMb } = report.reindex;
  const osUncached = uncachedTimes(report);
  const headline = http?.runs[0];
  const round = (x: number | undefined, d = 2) => (x === undefined || Number.isNaN(x) ? null : Number(x.toFixed(d)));
  console.log(
    JSON.stringify({
      images: counts.images,
      p50_ms: round(p50, 3),
      p99_ms: round(p99, 3),
      baseline_p50_ms: round(bp50),
      baseline_p99_ms: round(bp99),
      speedup_p50: round(bp50 / p50, 1),
      index_rss_mb: round(indexRssMb, 0),
      index_structures_mb: round(structuresMb, 0),
      full_gc_ms: round(report.reindex.fullGcMs, 0),
      reindex_s: round(reindexS, 1),
      reindex_thread_s: http ? round(http.reindexS, 1) : null,
      http_connections: headline ? headline.connections : null,
      http_p50_ms: headline ? round(headline.app.p50) : null,
      http_p99_ms: headline ? round(headline.app.p99) : null,
      http_rps: headline ? round(headline.app.rps, 0) : null,
      hono_ceiling_rps: headline ? round(headline.ceiling.rps, 0) : null,
      http_half_load_rps: http ? round(http.halfLoad.result.rps, 0) : null,
      http_half_load_p50_ms: http ? round(http.halfLoad.result.p50) : null,
      http_half_load_p99_ms: http ? round(http.halfLoad.result.p99) : null,
      opensearch_p50_ms: opensearch ? round(percentile(osAll, 0.5), 3) : null,
      opensearch_p99_ms: opensearch ? round(percentile(osAll, 0.99), 3) : null,
      opensearch_uncached_p50_ms: opensearch ? round(percentile(osUncached, 0.5), 3) : null,
      opensearch_uncached_p99_ms: opensearch ? round(percentile(osUncached, 0.99), 3) : null,
      opensearch_target_p50_met: opensearch ? percentile(osAll, 0.5) <= 10 : null,
      opensearch_reindex_s: opensearch ? round(opensearch.reindexS, 1) : null,
      opensearch_docs_per_s: opensearch ? round(opensearch.docs / opensearch.reindexS, 0) : null,
      reindex_docs_per_s: round(docs / reindexS, 0),
    }),
  );
}
