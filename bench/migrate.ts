/**
 * `npm run bench -- migrate [--images N] [--dir DIR] [--rebuild-source] [--source-only] [--runs R]
 *  [--baseline-runs B] [--variants V]`: bringing a Derpibooru-sized Philomena board in.
 *
 * 1. A Philomena-shaped source database of N images (default 3,200,000; bench/migrate/source.ts)
 *    in its own database `philomena_<N>` on an embedded PostgreSQL under DIR (default
 *    bench/.cache/migrate/), generated inside PostgreSQL and reused while it is there (build time
 *    reported, not a target). `--source-only` stops after this step, to have the source ready for a
 *    later run.
 * 2. The baseline, in the same run: every source table copied as it is, COPY out to a file and
 *    COPY in, into an empty database of the same schema — moving the rows with no mapping at all.
 * 3. The importer (`npm run import -- philomena postgres://…`) in a child process into a fresh
 *    Tagwise database: wall time (target with the index build ≤ 30 min), peak RSS from
 *    /proc/<pid>/status VmHWM (target ≤ 2 GB), rows per second of each table it read (from its
 *    progress lines) and rows written per table over the whole run.
 * 4. The search index built from the imported board in this process (seconds, memory it adds;
 *    target ≤ 4 GB), then the search bench's query mix on it (bench/search/mix.ts) against the
 *    same questions in SQL (bench/search/baseline.ts): p50/p99 (targets 1 ms / 20 ms).
 *
 * The last line is one JSON object with the figures.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres, { type Sql } from 'postgres';
import { type CompileOptions } from '../grammar/index.js';
import { compileQuery } from '../grammar/compiler.js';
import { Indexer } from '../indexer/index.js';
import { openDatabase } from '../src/db/client.js';
import { startEmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { compileComplexFilter } from '../src/contexts/search/filter.js';
import { findDefaultFilter } from '../src/contexts/filters/load.js';
import { EmbeddedEngine } from '../src/search/embedded/index.js';
import { imageFields } from '../src/search/indexes/images/fields.js';
import { buildImageSearch, parseImageSort, type HiddenByFilter } from '../src/search/requests/index.js';
import { createPhilomenaSchema } from '../test/support/philomena/schema.js';
import { buildPhilomenaSource, sourceShape, SOURCE_TABLES } from './migrate/source.js';
import { ensureBaselineTable } from './search/baseline.js';
import { baselineSql, buildMix, PER_PAGE, type MixQuery } from './search/mix.js';
import { table } from '../src/lib/table.js';
import { ascending, loadAverage, ms, percentile } from './harness/stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..');
const MB = 1024 * 1024;
const TARGETS = { totalMinutes: 30, importerRssMb: 2048, p50: 1, p99: 20, indexMb: 4096 };
/** Tagwise tables the importer fills, for rows written. */
const TARGET_TABLES = [
  'users', 'tags', 'tag_implications', 'images', 'image_taggings', 'image_sources', 'image_faves', 'image_votes', 'comments',
  'galleries', 'gallery_interactions', 'forums', 'topics', 'posts', 'filters', 'image_features',
];

const log = (m: string) => process.stderr.write(`${m}\n`);
const gc = (globalThis as { gc?: () => void }).gc;
const fullGc = () => {
  for (let i = 0; i < 3; i++) gc?.();
};

function options() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      images: { type: 'string' },
      dir: { type: 'string' },
      'rebuild-source': { type: 'boolean' },
      'source-only': { type: 'boolean' },
      runs: { type: 'string' },
      'baseline-runs': { type: 'string' },
      variants: { type: 'string' },
    },
  });
  const int = (v: string | undefined, name: string, fallback: number, min: number) => {
    if (v === undefined) return fallback;
    const n = Number(v.replaceAll('_', ''));
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number ≥ ${min}`);
    return n;
  };
  return {
    images: int(values.images, 'images', 3_200_000, 1_000),
    dir: values.dir ?? join(here, '.cache', 'migrate'),
    rebuildSource: values['rebuild-source'] === true,
    sourceOnly: values['source-only'] === true,
    runs: int(values.runs, 'runs', 160, 1),
    baselineRuns: int(values['baseline-runs'], 'baseline-runs', 16, 1),
    variants: int(values.variants, 'variants', 8, 2),
  };
}

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

async function counts(sql: Sql, tables: readonly string[]): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of tables) out[t] = (await sql.unsafe<Array<{ n: number }>>(`select count(*)::int as n from "${t}"`))[0]!.n;
  return out;
}

/** The source database of N images: reused when its row counts were recorded, else (re)built. */
async function ensureSource(admin: Sql, serverUrl: string, images: number, rebuild: boolean): Promise<{ url: string; rows: Record<string, number>; buildSeconds: number | null }> {
  const name = `philomena_${images}`;
  const url = withDatabase(serverUrl, name);
  const [row] = await admin.unsafe<Array<{ note: string | null }>>(
    `select shobj_description(oid, 'pg_database') as note from pg_database where datname = $1`, [name]);
  if (row?.note && !rebuild) return { url, rows: JSON.parse(row.note) as Record<string, number>, buildSeconds: null };
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  log(`generating a Philomena source of ${images.toLocaleString('en')} images in database ${name}`);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  const started = performance.now();
  try {
    const rows = await buildPhilomenaSource(sql, sourceShape(images), log);
    await admin.unsafe(`comment on database ${name} is '${JSON.stringify(rows)}'`);
    return { url, rows, buildSeconds: (performance.now() - started) / 1000 };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * The baseline: every source table written out with COPY and read into an empty database of the
 * same schema with COPY, by the server itself through files in `dir` (what a dump and restore of
 * the rows costs, with no mapping and no checks).
 */
async function rawCopy(admin: Sql, serverUrl: string, sourceUrl: string, dir: string): Promise<number> {
  const name = 'philomena_raw_copy';
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const dst = postgres(withDatabase(serverUrl, name), { max: 1, onnotice: () => {} });
  const src = postgres(sourceUrl, { max: 1, onnotice: () => {} });
  try {
    await createPhilomenaSchema(dst, 'current');
    await dst.unsafe('set session_replication_role = replica');
    const started = performance.now();
    for (const t of SOURCE_TABLES) {
      const file = join(dir, `${t}.copy`);
      await src.unsafe(`copy "${t}" to '${file}'`);
      await dst.unsafe(`copy "${t}" from '${file}'`);
      rmSync(file);
    }
    return (performance.now() - started) / 1000;
  } finally {
    await Promise.all([src.end({ timeout: 5 }), dst.end({ timeout: 5 })]);
    await admin.unsafe(`drop database if exists ${name} with (force)`);
  }
}

interface ImporterRun {
  seconds: number;
  peakRssMb: number;
  exitCode: number | null;
  /** Table → rows read and rows/s, from the importer's final progress lines. */
  read: Record<string, { rows: number; rowsPerSecond: number; seconds: number }>;
  stdout: string;
  stderrTail: string;
}

/** VmHWM (peak resident set) of a live process, in MB; undefined once it has gone. */
function peakRssMb(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Run the importer as `npm run import` runs it, in a child process, watching its peak RSS. */
function runImporter(sourceUrl: string, targetUrl: string, dataDir: string): Promise<ImporterRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/import.ts'), 'philomena', sourceUrl], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: targetUrl, DATA_DIR: dataDir, DEMO_DATA: 'false', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let peak = 0;
    const watch = setInterval(() => {
      peak = Math.max(peak, peakRssMb(child.pid!) ?? 0);
    }, 200);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      const text = d.toString();
      stderr += text;
      // Everything but the running progress lines, stamped with the run's elapsed time (the phases' times).
      const at = ((performance.now() - started) / 1000).toFixed(0).padStart(5);
      for (const line of text.split('\n')) if (line.trim() && !/ rows\/s( ETA \d+s)?$/.test(line)) log(`  importer ${at}s: ${line}`);
    });
    // The last reading just before the process is reaped: VmHWM only grows.
    child.on('exit', () => {
      peak = Math.max(peak, peakRssMb(child.pid!) ?? 0);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(watch);
      const read: ImporterRun['read'] = {};
      for (const line of stderr.split('\n')) {
        const m = /^(\S+)\s+([\d,]+) rows.* ([\d,]+) rows\/s \(([\d.]+)s\)$/.exec(line.trim());
        if (m) read[m[1]!] = { rows: Number(m[2]!.replaceAll(',', '')), rowsPerSecond: Number(m[3]!.replaceAll(',', '')), seconds: Number(m[4]) };
      }
      resolve({ seconds: (performance.now() - started) / 1000, peakRssMb: peak, exitCode: code, read, stdout, stderrTail: stderr.split('\n').slice(-30).join('\n') });
    });
  });
}

async function main(): Promise<void> {
  const o = options();
  mkdirSync(o.dir, { recursive: true });
  const loads: Record<string, string> = { start: loadAverage() };
  const server = await startEmbeddedPostgres(o.dir, log);
  const admin = postgres(server.url, { max: 1, onnotice: () => {} });
  const scratch = mkdtempSync(join(tmpdir(), 'tagwise-bench-migrate-'));
  try {
    // ------------------------------------------------------------------------------ source
    const source = await ensureSource(admin, server.url, o.images, o.rebuildSource);
    log(`source: ${Object.entries(source.rows).map(([t, n]) => `${t} ${n.toLocaleString('en')}`).join(', ')}`);
    const sourceRows = Object.values(source.rows).reduce((a, b) => a + b, 0);
    if (o.sourceOnly) return;

    // ---------------------------------------------------------------------------- baseline
    loads.baseline = loadAverage();
    log('baseline: raw COPY of every source table into an empty copy of its schema');
    const copyDir = join(scratch, 'copy');
    mkdirSync(copyDir, { mode: 0o777 });
    chmodSync(scratch, 0o755);
    chmodSync(copyDir, 0o777);
    const baselineSeconds = await rawCopy(admin, server.url, source.url, copyDir);
    log(`  baseline ${baselineSeconds.toFixed(1)} s`);

    // ---------------------------------------------------------------------------- importer
    const targetName = 'tagwise_migrated';
    await admin.unsafe(`drop database if exists ${targetName} with (force)`);
    await admin.unsafe(`create database ${targetName}`);
    const targetUrl = withDatabase(server.url, targetName);
    const migrated = await openDatabase({ databaseUrl: targetUrl, dataDir: scratch, max: 4 });
    await migrated.close();
    loads.importer = loadAverage();
    log(`importer: npm run import -- philomena ${source.url.replace(/\/\/[^@]*@/, '//')}`);
    const run = await runImporter(source.url, targetUrl, join(scratch, 'data'));
    if (run.exitCode !== 0) throw new Error(`the importer failed (exit ${run.exitCode}):\n${run.stderrTail}`);

    const handle = await openDatabase({ databaseUrl: targetUrl, dataDir: scratch, max: 4 });
    const base = postgres(targetUrl, { max: 1, onnotice: () => {} });
    try {
      const written = await counts(base, TARGET_TABLES);
      const writtenRows = Object.values(written).reduce((a, b) => a + b, 0);

      // ---------------------------------------------------------------------- index build
      loads.index = loadAverage();
      fullGc();
      const memBefore = process.memoryUsage().rss;
      const engine = new EmbeddedEngine();
      const indexer = new Indexer({ db: handle.db, engine });
      await indexer.ensureIndexes();
      const i0 = performance.now();
      await indexer.reindex(['images']);
      const indexSeconds = (performance.now() - i0) / 1000;
      fullGc();
      const indexMb = (process.memoryUsage().rss - memBefore) / MB;
      const structuresMb = engine.byteSize('images') / MB;

      // --------------------------------------------------------------------------- search
      loads.search = loadAverage();
      await ensureBaselineTable(base, o.images, log);
      await base.unsafe('set jit = off');
      const filter = await findDefaultFilter(handle.db);
      if (!filter) throw new Error('the imported board has no Default filter');
      if (compileComplexFilter(filter.hiddenComplexStr, null) !== null) throw new Error('the Default filter has a hidden complex expression');
      const hiddenTagIds = [...filter.hiddenTagIds];
      const hidden: HiddenByFilter[] = [{ tagIds: filter.hiddenTagIds, complex: { match_none: {} } }];
      const mix = await buildMix(base, { images: o.images, hiddenTagIds, variants: o.variants });
      const compileOptions: CompileOptions = { fields: imageFields, role: 'anonymous', context: { userId: null, filters: () => undefined } };
      const search = (m: MixQuery) =>
        engine.search('images', buildImageSearch({ query: compileQuery(m.q, compileOptions), sort: parseImageSort(m.sf, undefined), filters: hidden, page: m.page, perPage: PER_PAGE }));
      const rows: string[][] = [];
      const all: number[] = [];
      const allBaseline: number[] = [];
      let sameTotals = 0;
      for (const kind of mix.kinds) {
        const qs = mix.queries.filter((q) => q.kind === kind);
        for (const q of qs) {
          const mine = await search(q);
          const [sqlRow] = await base.unsafe<Array<{ total: number }>>(baselineSql(q, hiddenTagIds));
          if (sqlRow?.total === mine.total) sameTotals++;
        }
        const times: number[] = [];
        for (let i = 0; i < o.runs; i++) {
          const t = performance.now();
          await search(qs[i % qs.length]!);
          times.push(performance.now() - t);
        }
        const baseTimes: number[] = [];
        for (let i = 0; i < o.baselineRuns; i++) {
          const t = performance.now();
          await base.unsafe(baselineSql(qs[i % qs.length]!, hiddenTagIds));
          baseTimes.push(performance.now() - t);
        }
        ascending(times);
        ascending(baseTimes);
        all.push(...times);
        allBaseline.push(...baseTimes);
        rows.push([kind, ms(percentile(times, 0.5), 3), ms(percentile(times, 0.99), 3), ms(percentile(baseTimes, 0.5)), (percentile(baseTimes, 0.5) / percentile(times, 0.5)).toFixed(0)]);
      }
      ascending(all);
      ascending(allBaseline);
      const p50 = percentile(all, 0.5);
      const p99 = percentile(all, 0.99);
      const baselineP50 = percentile(allBaseline, 0.5);
      await engine.close();

      // -------------------------------------------------------------------------- report
      const totalMinutes = (run.seconds + indexSeconds) / 60;
      console.log(`\nsource: ${o.images.toLocaleString('en')} images, ${sourceRows.toLocaleString('en')} rows${source.buildSeconds === null ? ' (reused)' : `, generated in ${source.buildSeconds.toFixed(0)} s`}`);
      console.log(table(['importer read', 'rows', 'rows/s', 's'], Object.entries(run.read).map(([t, r]) => [t, r.rows.toLocaleString('en'), r.rowsPerSecond.toLocaleString('en'), r.seconds.toFixed(1)])));
      console.log(`\nimporter: ${run.seconds.toFixed(1)} s for ${writtenRows.toLocaleString('en')} rows written (${Math.round(writtenRows / run.seconds).toLocaleString('en')} rows/s), peak RSS ${run.peakRssMb.toFixed(0)} MB (target ≤ ${TARGETS.importerRssMb})`);
      console.log(`baseline raw COPY of the source tables: ${baselineSeconds.toFixed(1)} s → importer takes ${(run.seconds / baselineSeconds).toFixed(1)}× the raw copy`);
      console.log(`index build: ${indexSeconds.toFixed(1)} s, +${indexMb.toFixed(0)} MB RSS (structures ${structuresMb.toFixed(0)} MB; target ≤ ${TARGETS.indexMb})`);
      console.log(`import + index: ${totalMinutes.toFixed(1)} min (target ≤ ${TARGETS.totalMinutes})\n`);
      console.log(table(['query kind', 'p50 ms', 'p99 ms', 'SQL p50 ms', 'speedup'], rows));
      console.log(`\nsearch: p50 ${ms(p50, 3)} ms, p99 ${ms(p99, 3)} ms (targets ${TARGETS.p50} / ${TARGETS.p99}); SQL baseline p50 ${ms(baselineP50)} ms → ${(baselineP50 / p50).toFixed(0)}× ; totals agree on ${sameTotals}/${mix.queries.length}`);
      console.log(`load: ${Object.entries(loads).map(([k, v]) => `${k} ${v}`).join(', ')}`);
      const round = (x: number, d = 1) => Number(x.toFixed(d));
      console.log(JSON.stringify({
        bench: 'migrate',
        images: o.images,
        sourceRows: source.rows,
        importSeconds: round(run.seconds),
        indexSeconds: round(indexSeconds),
        totalMinutes: round(totalMinutes, 2),
        rowsPerSecond: Object.fromEntries(TARGET_TABLES.map((t) => [t, run.read[t]?.rowsPerSecond ?? Math.round(written[t]! / run.seconds)])),
        rowsWritten: written,
        importerPeakRssMb: round(run.peakRssMb, 0),
        baselineRawCopySeconds: round(baselineSeconds),
        importVsRawCopy: round(run.seconds / baselineSeconds, 2),
        search: { p50Ms: round(p50, 3), p99Ms: round(p99, 3), sqlP50Ms: round(baselineP50, 2), speedupP50: round(baselineP50 / p50, 0), totalsAgree: `${sameTotals}/${mix.queries.length}` },
        indexRssMb: round(indexMb, 0),
        indexStructuresMb: round(structuresMb, 0),
        targets: TARGETS,
        met: {
          total: totalMinutes <= TARGETS.totalMinutes,
          importerRss: run.peakRssMb <= TARGETS.importerRssMb,
          p50: p50 <= TARGETS.p50,
          p99: p99 <= TARGETS.p99,
          indexMemory: indexMb <= TARGETS.indexMb,
        },
      }));
    } finally {
      await base.end({ timeout: 5 });
      await handle.close();
    }
  } finally {
    await admin.end({ timeout: 5 });
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
