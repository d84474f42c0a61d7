/**
 * `npm run bench -- search [--images N] [--rebuild] [--http|--no-http] [--seconds S] [--runs R]
 *  [--baseline-runs B] [--connections C,…] [--variants V] [--engine opensearch [--opensearch-url U]]`:
 *  the search acceptance benchmark.
 *
 * 1. A bulk-seeded board of N images (default 1,000,000) in `bench/.cache/board-<N>/`, built once
 *    with the bulk seeder and reused while its count matches (build time reported, not a target).
 * 2. A full reindex of the images into a fresh in-memory embedded engine: seconds (target ≤ 120 s)
 *    and the RSS it adds after a GC (target ≤ 1,500 MB).
 * 3. A fixed query mix (one tag popular and mid-frequency, three tags AND, OR of three, negation,
 *    tag + score range, wildcard prefix and infix, sorted by score, random order, deep page 200),
 *    each compiled from its text by the grammar and wrapped with the Default filter exactly as
 *    `/search/images` does, run many times on the engine: p50/p99 (targets 5 ms / 50 ms).
 * 4. In the same run, kind by kind, the baseline: the same questions in SQL on a GIN-indexed
 *    int[] of tag ids (`bench_images`), page and exact total in one round trip; results checked
 *    against the engine's; speedup at p50 (target ≥ 10×).
 * 5. Unless `--no-http`: the real app over HTTP, on the engine as `npm start` runs it (on a thread
 *    of its own, filled by a second reindex, timed too), for each count C of concurrent keep-alive
 *    connections (default 4 and 16) for S seconds (p50, p99, requests/s), and a bare Hono JSON
 *    answer as the ceiling of the stack at the same count. The headline HTTP figures, held to the
 *    engine's targets, are those of the first count: a closed loop of C clients on 2 cores queues
 *    C requests at once, so its latencies grow with C even when nothing gets slower. Then the
 *    latency at half the first count's throughput, offered on a schedule (open loop).
 * 6. With `--engine opensearch`: the same images reindexed into the OpenSearch node at
 *    `--opensearch-url` (default OPENSEARCH_URL, else http://127.0.0.1:9200; `npm run opensearch`
 *    starts one) through the same indexer (seconds, documents/s), and the same mix run on it
 *    (p50/p99 and answers compared with the embedded engine's), beside the embedded figures.
 *
 * Wall times on a shared machine depend on its load: the load average is printed with every
 * phase, and CPU times of this process and of the PostgreSQL server are reported beside them.
 * The last line is one JSON object with the headline figures.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { type CompileOptions, type Query } from '../grammar/index.js';
import { compileQuery } from '../grammar/compiler.js';
import { Indexer } from '../indexer/index.js';
import { postmasterPid } from '../src/db/embedded-postgres.js';
import { compileComplexFilter } from '../src/contexts/search/filter.js';
import { findDefaultFilter } from '../src/contexts/filters/load.js';
import { EmbeddedEngine } from '../src/search/embedded/index.js';
import type { SearchEngine, SearchResult } from '../src/search/engine.js';
import { imageFields } from '../src/search/indexes/images/fields.js';
import { buildImageSearch, parseImageSort, type HiddenByFilter } from '../src/search/requests/index.js';
import type { Server } from './harness/http.js';
import { ascending, cpuMs, loadAverage, mean, percentile, serverCpuMs } from './harness/stats.js';
import { ensureBaselineTable } from './search/baseline.js';
import { openBoard } from './search/board.js';
import { runHttpPhase, type HttpFigures } from './search/http-phase.js';
import { baselineSql, buildMix, PER_PAGE, type MixQuery } from './search/mix.js';
import { benchOpenSearch, type OpenSearchSide } from './search/opensearch.js';
import { searchBenchOptions } from './search/options.js';
import { runQueryMix } from './search/queries.js';
import { printReport } from './search/report.js';

const here = dirname(fileURLToPath(import.meta.url));
const CACHE = join(here, '.cache');
const MB = 1024 * 1024;

const log = (m: string) => process.stderr.write(`${m}\n`);

const gc = (globalThis as { gc?: () => void }).gc;
function fullGc(): void {
  for (let i = 0; i < 3; i++) gc?.();
}


async function main(): Promise<void> {
  const o = searchBenchOptions();
  mkdirSync(CACHE, { recursive: true });
  const loads: Record<string, string> = { start: loadAverage() };
  if (!gc) log('note: run with --expose-gc (npm run bench does) for memory figures after a full GC');

  // ------------------------------------------------------------------------------- board
  const board = await openBoard(CACHE, o.images, o.rebuild, log);
  const { db } = board.handle;
  const pgPid = postmasterPid(join(board.dir, 'postgres'));
  const pgCpu = () => (pgPid === undefined ? undefined : serverCpuMs(pgPid));
  const base = postgres(board.handle.url, { max: 1, onnotice: () => {}, connection: { application_name: 'tagwise-bench-baseline' } });
  const servers: Server[] = [];
  try {
    const baselineBuild = await ensureBaselineTable(base, o.images, log);
    const [counts] = await db.$client.unsafe<{ images: number; tags: number; taggings: number }[]>(
      `select (select count(*)::int from images) as images, (select count(*)::int from tags) as tags,
              (select count(*)::int from image_taggings) as taggings`,
    );
    // The baseline session: no JIT (its compile time would only slow the baseline down).
    await base.unsafe('set jit = off');
    await base.unsafe("set statement_timeout = '300s'");

    // The Default filter, applied as /search/images applies it for an anonymous caller.
    const filter = await findDefaultFilter(db);
    if (!filter) throw new Error('the board has no Default filter');
    const complex = compileComplexFilter(filter.hiddenComplexStr, null);
    if (complex !== null) throw new Error('the Default filter has a hidden complex expression: the SQL baseline does not express it');
    const hidden: HiddenByFilter[] = [{ tagIds: filter.hiddenTagIds, complex: { match_none: {} } }];
    const hiddenTagIds = [...filter.hiddenTagIds];

    // ----------------------------------------------------------------------------- reindex
    loads.reindex = loadAverage();
    fullGc();
    const memBefore = process.memoryUsage();
    // dropped before the HTTP part, which runs on the engine as `npm start` makes it
    let engine: EmbeddedEngine | null = new EmbeddedEngine();
    let writeMs = 0;
    let writeCpuMs = 0;
    let write: EmbeddedEngine['write'] | null = engine.write.bind(engine);
    engine.write = async (index, docs) => {
      const t0 = performance.now();
      const c0 = cpuMs();
      try {
        await write!(index, docs);
      } finally {
        writeMs += performance.now() - t0;
        writeCpuMs += cpuMs() - c0;
      }
    };
    let indexer: Indexer | null = new Indexer({ db, engine });
    await indexer.ensureIndexes();
    let lastTenth = -1;
    const cpu0 = cpuMs();
    const pg0 = pgCpu();
    const t0 = performance.now();
    const [result] = await indexer.reindex(['images'], {
      onProgress: (p) => {
        const tenth = Math.floor((p.done / Math.max(1, p.total)) * 10);
        if (p.phase === 'loading' && tenth !== lastTenth) {
          lastTenth = tenth;
          log(`  reindex ${tenth * 10}% (${p.done}/${p.total}) ${(p.elapsedMs / 1000).toFixed(1)} s, ${p.docsPerSecond}/s`);
        }
      },
    });
    const reindexS = (performance.now() - t0) / 1000;
    const reindexCpuS = (cpuMs() - cpu0) / 1000;
    const pg1 = pgCpu();
    const reindexPgCpuS = pg0 === undefined || pg1 === undefined ? undefined : (pg1 - pg0) / 1000;
    engine.write = write;
    fullGc();
    const memAfter = process.memoryUsage();
    const indexRssMb = (memAfter.rss - memBefore.rss) / MB;
    const heapMb = (memAfter.heapUsed - memBefore.heapUsed) / MB;
    // `external` includes the array buffers (typed arrays of the engine's columns and postings)
    const offHeapMb = (memAfter.external - memBefore.external) / MB;
    const structuresMb = engine.byteSize('images') / MB;
    const structures = engine.byteSizes('images');
    // one more full collection, timed: the pause a search can land in once the index is built
    // (it grows with the heap objects the index holds)
    const gc0 = performance.now();
    gc?.();
    const fullGcMs = performance.now() - gc0;
    const docs = result?.docs ?? 0;

    // ------------------------------------------------------------------------------ queries
    const mix = await buildMix(base, { images: o.images, hiddenTagIds, variants: o.variants });
    const compileOptions: CompileOptions = { fields: imageFields, role: 'anonymous', context: { userId: null, filters: () => undefined } };
    const searchOn = (target: SearchEngine, m: MixQuery): Promise<SearchResult> => {
      const query: Query = compileQuery(m.q, compileOptions);
      const request = buildImageSearch({ query, sort: parseImageSort(m.sf, undefined), filters: hidden, page: m.page, perPage: PER_PAGE });
      return target.search('images', request);
    };
    const engineSearch = (m: MixQuery): Promise<SearchResult> => searchOn(engine!, m);
    const baselineSearch = async (m: MixQuery): Promise<SearchResult> => {
      const [row] = await base.unsafe<{ total: number; ids: number[] }[]>(baselineSql(m, hiddenTagIds));
      return { total: row?.total ?? 0, ids: row?.ids ?? [] };
    };

    loads.queries = loadAverage();
    const { kinds, engineFirst } = await runQueryMix({
      mix,
      runs: o.runs,
      baselineRuns: o.baselineRuns,
      engineSearch,
      baselineSearch,
      base,
      hiddenTagIds,
      pgCpu,
      log,
    });
    loads.queriesEnd = loadAverage();
    const allEngine = ascending(kinds.flatMap((k) => k.engine));
    const allEngineCpu = ascending(kinds.flatMap((k) => k.engineCpu));
    const allBaseline = ascending(kinds.flatMap((k) => k.baseline));
    const p50 = percentile(allEngine, 0.5);
    const p99 = percentile(allEngine, 0.99);
    const bp50 = percentile(allBaseline, 0.5);
    const bp99 = percentile(allBaseline, 0.99);
    const pgCpuPerQuery = mean(kinds.map((k) => k.baselinePgCpuPerQuery ?? Number.NaN));

    // --------------------------------------------------------------------------- OpenSearch
    let opensearch: OpenSearchSide | undefined;
    if (o.opensearchUrl) {
      loads.opensearch = loadAverage();
      opensearch = await benchOpenSearch({
        url: o.opensearchUrl,
        db,
        queries: mix.queries,
        kinds: mix.kinds,
        runs: o.runs,
        embeddedAnswers: engineFirst,
        search: searchOn,
        log,
      });
      loads.opensearchEnd = loadAverage();
    }
    const osAll = opensearch ? ascending(opensearch.kinds.flatMap((k) => k.times)) : [];

    let http: HttpFigures | undefined;
    engine = null;
    indexer = null;
    write = null;
    fullGc();
    if (o.http) {
      http = await runHttpPhase({
        boardDir: board.dir,
        db,
        mix,
        engineFirst,
        connections: o.connections,
        seconds: o.seconds,
        pgCpu,
        servers,
        loads,
        log,
      });
    }

    printReport({
      o,
      counts: counts!,
      board,
      baselineBuild,
      reindex: {
        docs,
        reindexS,
        reindexCpuS,
        reindexPgCpuS,
        writeMs,
        writeCpuMs,
        indexRssMb,
        heapMb,
        offHeapMb,
        structuresMb,
        structures,
        fullGcMs,
        rssAfterMb: memAfter.rss / MB,
      },
      loads,
      hiddenTagIds,
      mix,
      kinds,
      allEngineCpu,
      p50,
      p99,
      bp50,
      bp99,
      pgCpuPerQuery,
      opensearch,
      osAll,
      http,
    });
  } finally {
    for (const s of servers.reverse()) await s.close();
    await base.end({ timeout: 5 });
    await board.handle.close();
  }
}

await main();
