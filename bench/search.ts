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
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { compileQuery, type CompileOptions, type Query } from '../grammar/index.js';
import { Indexer } from '../indexer/index.js';
import { postmasterPid } from '../src/db/embedded-postgres.js';
import { compileComplexFilter } from '../src/http/filter-query.js';
import { findDefaultFilter } from '../src/contexts/filters/load.js';
import { EmbeddedEngine, EngineThread } from '../src/search/embedded/index.js';
import { idRangeBits, IdPermutation } from '../src/search/embedded/query/score.js';
import type { SearchEngine, SearchResult } from '../src/search/engine.js';
import { imageFields } from '../src/search/indexes/images/fields.js';
import { buildImageSearch, parseImageSort, type HiddenByFilter } from '../src/search/requests/index.js';
import { ensureBaselineTable } from './search/baseline.js';
import { openBoard } from './search/board.js';
import type { DriverResult } from './harness/driver.js';
import { drive, startApp, startHonoCeiling, type Server } from './harness/http.js';
import { allMatchesSql, baselineSql, buildMix, PER_PAGE, type MixQuery } from './search/mix.js';
import { benchOpenSearch, type OpenSearchSide } from './search/opensearch.js';
import { ascending, cpuMs, loadAverage, mean, ms, percentile, serverCpuMs } from './harness/stats.js';
import { table } from '../src/lib/table.js';

const here = dirname(fileURLToPath(import.meta.url));
const CACHE = join(here, '.cache');
const MB = 1024 * 1024;

const TARGETS = { p50: 5, p99: 50, speedup: 10, rssMb: 1500, reindexS: 120 };

function options() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      images: { type: 'string' },
      rebuild: { type: 'boolean' },
      http: { type: 'boolean' },
      'no-http': { type: 'boolean' },
      seconds: { type: 'string' },
      runs: { type: 'string' },
      'baseline-runs': { type: 'string' },
      connections: { type: 'string' },
      variants: { type: 'string' },
      engine: { type: 'string' },
      'opensearch-url': { type: 'string' },
    },
  });
  const int = (v: string | undefined, name: string, fallback: number, min: number) => {
    if (v === undefined) return fallback;
    if (!/^\d+$/.test(v.replaceAll('_', '')) || Number(v.replaceAll('_', '')) < min) throw new Error(`--${name} must be a whole number ≥ ${min}`);
    return Number(v.replaceAll('_', ''));
  };
  return {
    images: int(values.images, 'images', 1_000_000, 1000),
    rebuild: values.rebuild === true,
    http: !values['no-http'],
    seconds: int(values.seconds, 'seconds', 10, 1),
    runs: int(values.runs, 'runs', 320, 1),
    baselineRuns: int(values['baseline-runs'], 'baseline-runs', 48, 1),
    connections: connectionCounts(values.connections),
    variants: int(values.variants, 'variants', 16, 2),
    opensearchUrl: opensearchUrl(values.engine, values['opensearch-url']),
  };
}

const log = (m: string) => process.stderr.write(`${m}\n`);

/** The node to compare with under `--engine opensearch`, else undefined. */
function opensearchUrl(engine: string | undefined, url: string | undefined): string | undefined {
  if (engine === undefined) {
    if (url !== undefined) throw new Error('--opensearch-url needs --engine opensearch');
    return undefined;
  }
  if (engine !== 'opensearch') throw new Error('--engine takes opensearch (the embedded engine always runs)');
  return url ?? process.env.OPENSEARCH_URL ?? 'http://127.0.0.1:9200';
}

/** `--connections 4,16`: the counts of concurrent connections of the HTTP runs, in order. */
function connectionCounts(v: string | undefined): number[] {
  if (v === undefined) return [4, 16];
  const counts = v.split(',').map((x) => x.trim());
  if (counts.length === 0 || counts.some((x) => !/^\d+$/.test(x) || Number(x) < 1)) throw new Error('--connections must be whole numbers ≥ 1, comma-separated');
  return counts.map(Number);
}

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

const gc = (globalThis as { gc?: () => void }).gc;
function fullGc(): void {
  for (let i = 0; i < 3; i++) gc?.();
}

interface KindStats {
  kind: string;
  example: string;
  hitsMean: number;
  engine: number[];
  engineCpu: number[];
  /** The first run of each variant, before the warm-up. */
  first: number[];
  baseline: number[];
  baselinePgCpuPerQuery: number | undefined;
  sameTotal: number;
  sameIds: number;
  compared: number;
  idsNote: string;
}

async function main(): Promise<void> {
  const o = options();
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
    const kinds: KindStats[] = [];
    const engineFirst = new Map<MixQuery, SearchResult>();
    for (const kind of mix.kinds) {
      const qs = mix.queries.filter((q) => q.kind === kind);
      log(`  ${kind}: engine ${o.runs} runs, baseline ${o.baselineRuns} runs (load ${loadAverage()})`);
      // engine: warm-up (JIT, lazily built sort columns and caches), then the timed runs
      // the first run of each variant pays for lazily built structures and fills the caches of
      // expansions (wildcards): shown apart as "first max"
      const first: number[] = [];
      for (const q of qs) {
        const s0 = performance.now();
        engineFirst.set(q, await engineSearch(q));
        first.push(performance.now() - s0);
      }
      for (let w = 0; w < 2; w++) for (const q of qs) await engineSearch(q);
      const times: number[] = [];
      const cpu: number[] = [];
      let hits = 0;
      for (let i = 0; i < o.runs; i++) {
        const q = qs[i % qs.length]!;
        const c0 = cpuMs();
        const s0 = performance.now();
        const r = await engineSearch(q);
        times.push(performance.now() - s0);
        cpu.push(cpuMs() - c0);
        hits += r.total;
      }
      // baseline: one warm-up run per variant (its answer is compared), then the timed runs
      let sameTotal = 0;
      let sameIds = 0;
      let idsNote = '';
      for (const q of qs) {
        const sqlResult = await baselineSearch(q);
        const mine = engineFirst.get(q)!;
        if (mine.total === sqlResult.total) sameTotal++;
        if (q.sf?.startsWith('random:')) continue;
        if (JSON.stringify(mine.ids) === JSON.stringify(sqlResult.ids)) sameIds++;
      }
      const baseTimes: number[] = [];
      const pgBefore = pgCpu();
      for (let i = 0; i < o.baselineRuns; i++) {
        const q = qs[i % qs.length]!;
        const s0 = performance.now();
        await baselineSearch(q);
        baseTimes.push(performance.now() - s0);
      }
      const pgAfter = pgCpu();
      if (qs[0]?.sf?.startsWith('random:')) {
        // md5 order in SQL is not the engine's random function: check the engine's page against
        // its own function applied to every match SQL finds
        const [{ maxId } = { maxId: 0 }] = await base.unsafe<{ maxId: number }[]>('select coalesce(max(id), 0)::int as "maxId" from images');
        for (const q of qs) {
          const [row] = await base.unsafe<{ ids: number[] }[]>(allMatchesSql(q, hiddenTagIds));
          const perm = new IdPermutation(Number(q.sf!.slice(7)), idRangeBits(maxId));
          const scored = (row?.ids ?? []).map((id) => ({ id, s: perm.rankOf(id) }));
          scored.sort((a, b) => b.s - a.s || b.id - a.id);
          const expected = scored.slice((q.page - 1) * PER_PAGE, q.page * PER_PAGE).map((x) => x.id);
          if (JSON.stringify(expected) === JSON.stringify(engineFirst.get(q)!.ids)) sameIds++;
        }
        idsNote = ' (engine random fn on SQL matches)';
      }
      kinds.push({
        kind,
        example: qs[0]!.q + (qs[0]!.sf ? ` sf=${qs[0]!.sf}` : '') + (qs[0]!.page > 1 ? ` page=${qs[0]!.page}` : ''),
        hitsMean: hits / o.runs,
        engine: ascending(times),
        engineCpu: ascending(cpu),
        first,
        baseline: ascending(baseTimes),
        baselinePgCpuPerQuery: pgBefore === undefined || pgAfter === undefined ? undefined : (pgAfter - pgBefore) / o.baselineRuns,
        sameTotal,
        sameIds,
        compared: qs.length,
        idsNote,
      });
    }
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

    // --------------------------------------------------------------------------------- HTTP
    interface HttpRun {
      connections: number;
      app: DriverResult;
      ceiling: DriverResult;
      appCpuPerReq: number;
      appPgCpuPerReq?: number;
      ceilingCpuPerReq: number;
    }
    let http:
      | {
          reindexS: number;
          runs: HttpRun[];
          checked: number;
          agreed: number;
          halfLoad: { rate: number; connections: number; result: DriverResult };
        }
      | undefined;
    engine = null;
    indexer = null;
    write = null;
    fullGc();
    if (o.http) {
      // the app's engine as `npm start` makes it: on its own thread, filled by a reindex
      loads.http = loadAverage();
      const threaded = new EngineThread();
      servers.push({ origin: '', close: () => threaded.close() });
      const threadIndexer = new Indexer({ db, engine: threaded });
      await threadIndexer.ensureIndexes();
      log(`  reindex on the engine thread (load ${loadAverage()})`);
      const r0 = performance.now();
      await threadIndexer.reindex(['images']);
      const threadReindexS = (performance.now() - r0) / 1000;
      const app = await startApp(board.dir, db, threaded);
      servers.push(app);
      const ceiling = await startHonoCeiling();
      servers.push(ceiling);
      const pathOf = (m: MixQuery) =>
        `/api/v1/json/search/images?q=${encodeURIComponent(m.q)}&per_page=${PER_PAGE}${m.page > 1 ? `&page=${m.page}` : ''}${m.sf ? `&sf=${encodeURIComponent(m.sf)}` : ''}`;
      // the endpoint answers what the engine answers (first variant of each kind)
      let checked = 0;
      let agreed = 0;
      for (const kind of mix.kinds) {
        const q = mix.queries.find((x) => x.kind === kind)!;
        const res = await fetch(`${app.origin}${pathOf(q)}`);
        const body = (await res.json()) as { images?: Array<{ id: number }>; total?: number; error?: string };
        checked++;
        const mine = engineFirst.get(q)!;
        if (res.status === 200 && body.total === mine.total && JSON.stringify(body.images?.map((i) => i.id)) === JSON.stringify(mine.ids)) agreed++;
        else log(`  HTTP answer differs for ${kind}: status ${res.status}, total ${body.total} vs ${mine.total}${body.error ? `, ${body.error}` : ''}`);
      }
      const paths = mix.queries.map(pathOf);
      // as the engine's own runs are: after every query was answered twice (a server that has
      // been up a while has compiled its code and cached its pages' images)
      for (let w = 0; w < 2; w++) for (const path of paths) await (await fetch(`${app.origin}${path}`)).arrayBuffer();
      const runs: HttpRun[] = [];
      for (const connections of o.connections) {
        log(`  HTTP: ${connections} connections, ${o.seconds} s on the app (load ${loadAverage()})`);
        let c0 = cpuMs();
        const pgA = pgCpu();
        const appResult = await drive({ origin: app.origin, paths, connections, seconds: o.seconds, warmupSeconds: 2 });
        const appCpuPerReq = (cpuMs() - c0) / appResult.allRequests;
        const pgB = pgCpu();
        log(`  HTTP: ${connections} connections, ${o.seconds} s on the bare Hono ceiling (load ${loadAverage()})`);
        c0 = cpuMs();
        const ceilingResult = await drive({ origin: ceiling.origin, paths: ['/'], connections, seconds: o.seconds, warmupSeconds: 2 });
        runs.push({
          connections,
          app: appResult,
          ceiling: ceilingResult,
          appCpuPerReq,
          ...(pgA === undefined || pgB === undefined ? {} : { appPgCpuPerReq: (pgB - pgA) / appResult.allRequests }),
          ceilingCpuPerReq: (cpuMs() - c0) / ceilingResult.allRequests,
        });
      }
      // Latency at a load the server keeps up with: half the closed loop's throughput at the first
      // count, offered on a schedule. In a closed loop every connection waits behind the others,
      // so its p50 is about connections × service time whatever the endpoint costs.
      const first = runs[0]!;
      const rate = Math.max(1, Math.round(first.app.rps / 2));
      log(`  HTTP: ${rate} requests/s over ${first.connections} connections, ${o.seconds} s on the app (load ${loadAverage()})`);
      const halfLoad = await drive({ origin: app.origin, paths, connections: first.connections, seconds: o.seconds, warmupSeconds: 2, rate });
      http = { reindexS: threadReindexS, runs, checked, agreed, halfLoad: { rate, connections: first.connections, result: halfLoad } };
      loads.httpEnd = loadAverage();
    }

    // ------------------------------------------------------------------------------- report
    const mark = (ok: boolean) => (ok ? 'met' : 'MISSED');
    console.log(`\n== board`);
    console.log(
      `images ${counts!.images.toLocaleString('en')}, tags ${counts!.tags.toLocaleString('en')}, taggings ${counts!.taggings.toLocaleString('en')} ` +
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
          ['  RSS after, MB', (memAfter.rss / MB).toFixed(0), ''],
        ],
      ),
    );
    console.log(`load average at reindex start: ${loads.reindex}`);

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

    if (opensearch) {
      console.log(
        `\n== OpenSearch at ${o.opensearchUrl} beside the embedded engine (same images, same indexer, same mix; ` +
          `reindex ${opensearch.docs} docs in ${opensearch.reindexS.toFixed(1)} s = ${(opensearch.docs / opensearch.reindexS).toFixed(0)} docs/s, ` +
          `embedded ${docs} docs in ${reindexS.toFixed(1)} s = ${(docs / reindexS).toFixed(0)} docs/s)`,
      );
      console.log(
        table(
          ['query kind', 'embedded p50', 'embedded p99', 'OpenSearch p50', 'OpenSearch p99', 'same total', 'same ids'],
          opensearch.kinds.map((k) => {
            const mine = kinds.find((x) => x.kind === k.kind)!;
            return [
              k.kind,
              ms(percentile(mine.engine, 0.5)),
              ms(percentile(mine.engine, 0.99)),
              ms(percentile(k.times, 0.5)),
              ms(percentile(k.times, 0.99)),
              `${k.sameTotal}/${k.compared}`,
              k.kind.startsWith('random') ? 'own order' : `${k.sameIds}/${k.compared}`,
            ];
          }),
        ),
      );
      console.log(
        `all kinds: embedded p50 ${ms(p50)} ms, p99 ${ms(p99)} ms; OpenSearch p50 ${ms(percentile(osAll, 0.5))} ms, p99 ${ms(percentile(osAll, 0.99))} ms ` +
          `(sequential, one query at a time, HTTP round trip on loopback included); load average: start ${loads.opensearch}, end ${loads.opensearchEnd}`,
      );
    }

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

    const round = (x: number | undefined, d = 2) => (x === undefined || Number.isNaN(x) ? null : Number(x.toFixed(d)));
    console.log(
      JSON.stringify({
        images: counts!.images,
        p50_ms: round(p50, 3),
        p99_ms: round(p99, 3),
        baseline_p50_ms: round(bp50),
        baseline_p99_ms: round(bp99),
        speedup_p50: round(bp50 / p50, 1),
        index_rss_mb: round(indexRssMb, 0),
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
        opensearch_reindex_s: opensearch ? round(opensearch.reindexS, 1) : null,
        opensearch_docs_per_s: opensearch ? round(opensearch.docs / opensearch.reindexS, 0) : null,
        reindex_docs_per_s: round(docs / reindexS, 0),
      }),
    );
  } finally {
    for (const s of servers.reverse()) await s.close();
    await base.end({ timeout: 5 });
    await board.handle.close();
  }
}

await main();
