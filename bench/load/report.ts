/**
 * The load benchmark's figures: the mix's groups and their shares, the passes of the mix, and the
 * tables and JSON line they are reported as.
 */
import { availableParallelism } from 'node:os';
import { table } from '../../src/lib/table.js';
import type { DriverResult, Figures } from '../harness/driver.js';
import type { LoopStats } from './loop-stats.js';
import type { RssFigures } from './rss.js';

// Route groups and their shares of the mix
export const GROUPS = ['image show', 'image search', 'tag show', 'comment/post search', 'featured/forums/filters', 'oembed'] as const;
export type Group = (typeof GROUPS)[number];
export const SHARES: Record<Group, number> = {
  'image show': 40,
  'image search': 25,
  'tag show': 10,
  'comment/post search': 10,
  'featured/forums/filters': 10,
  oembed: 5,
};

/** One pass of the mix, with the service's and its PostgreSQL's CPU over its measured window. */
export interface MixPass {
  result: DriverResult;
  svcCpu: number | undefined;
  pgCpu: number | undefined;
}

/** The passes of the mix read-only or with writes, and the writes made over them. */
export interface MixRun {
  passes: MixPass[];
  writes: number;
}

/** Requests answered over the passes of a run, of one group or of all. */
const mixRequests = (run: MixRun, group?: number) => run.passes.reduce((n, p) => n + (group === undefined ? p.result.requests : p.result.byGroup[group]!.requests), 0);

/** Requests a second over the passes of a run, of one group or of all. */
const mixRps = (run: MixRun, group?: number) => mixRequests(run, group) / run.passes.reduce((t, p) => t + p.result.seconds, 0);

/** The worse p99 of the passes of a run, of one group or of all. */
const mixP99 = (run: MixRun, group?: number) => Math.max(...run.passes.map((p) => (group === undefined ? p.result.p99 : p.result.byGroup[group]!.p99)));

/** CPU over the passes of a run (undefined when a clock could not be read). */
function cpuOf(run: MixRun, key: 'svcCpu' | 'pgCpu'): number | undefined {
  let sum = 0;
  for (const p of run.passes) {
    const v = p[key];
    if (v === undefined) return undefined;
    sum += v;
  }
  return sum;
}

export const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : '-');
export const round = (x: number, digits: number): number => (Number.isFinite(x) ? Number(x.toFixed(digits)) : 0);

function describeCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k}×${v}`).join(' ');
}

export interface RouteFigures {
  route: string;
  full: DriverResult;
  half: DriverResult;
  /** The service's event-loop delay and GC over the half-load phase (not for the ceiling). */
  halfLoop?: LoopStats;
  /**
   * The server's CPU (user + system) a request over the full-load window, in microseconds: unlike
   * requests a second, other work on the machine hardly changes it.
   */
  fullCpuUs: number;
}

const errorsOf = (s: Figures) => s.errors + Object.values(s.socketErrors).reduce((a, b) => a + b, 0);
const non2xx = (s: Figures) => Object.fromEntries(Object.entries(s.statuses).filter(([status]) => !status.startsWith('2')));
const problemsOf = (s: Figures) =>
  `${describeCounts(non2xx(s))}${Object.keys(s.socketErrors).length > 0 ? ` socket: ${describeCounts(s.socketErrors)}` : ''}`;

/** Everything one run of the benchmark measured. */
export interface LoadFigures {
  images: number;
  routes: RouteFigures[];
  ceiling: RouteFigures;
  readOnly: MixRun;
  withWrites: MixRun | undefined;
  /** The writes a second of `withWrites` (0: the control run, the same passes without writes). */
  writesPerSecond: number;
  /** The load average at the start of each phase, by phase. */
  loads: Record<string, string>;
  /** The service's RSS from its warm start to the end of the mix (none when it was not sampled). */
  memory?: RssFigures | undefined;
}

/** The tables of each route and of the mix, the CPU a request, the targets, and one JSON line. */
export function printLoadReport(figures: LoadFigures, log: (msg: string) => void): void {
  const { routes, ceiling, readOnly, withWrites, writesPerSecond, loads, memory } = figures;
  const withName = `${writesPerSecond} write/s`;
  const pct = (x: number) => `${fmt(x * 100, 1)}%`;
  const routeRows = [...routes, ceiling].map(({ route, full, half, halfLoop, fullCpuUs }) => [
    route,
    fmt(full.rps),
    route === 'bare Hono' ? '-' : pct(full.rps / ceiling.full.rps),
    fmt(fullCpuUs),
    fmt(full.p50, 2),
    fmt(full.p99, 2),
    fmt(full.p999, 2),
    fmt(half.rps),
    fmt(half.p50, 2),
    fmt(half.p99, 2),
    fmt(half.p999, 2),
    route === 'bare Hono' || !halfLoop ? '-' : `${fmt(halfLoop.loopP99Ms, 1)}/${fmt(halfLoop.loopMaxMs, 1)}`,
    route === 'bare Hono' || !halfLoop ? '-' : fmt(Object.values(halfLoop.gcMs).reduce((a, b) => a + b, 0), 0),
    String(errorsOf(full) + errorsOf(half)),
    problemsOf(full) === '-' ? problemsOf(half) : problemsOf(full),
  ]);
  log('');
  log(
    table(
      ['route', 'full req/s', 'of Hono', 'CPU µs/req', 'p50 ms', 'p99 ms', 'p99.9 ms', 'half req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'loop p99/max', 'GC ms', 'errors', 'non-2xx / socket'],
      routeRows,
      [0, 14],
    ),
  );
  log('');
  const cells = (run: MixRun | undefined, group?: number) => (run ? [fmt(mixRps(run, group)), fmt(mixP99(run, group), 2)] : ['-', '-']);
  log(
    table(
      ['mix group', 'share', 'req/s read-only', 'p99 ms', `req/s, ${withName}`, 'p99 ms'],
      GROUPS.map((g, i) => [g, `${SHARES[g]}%`, ...cells(readOnly, i), ...cells(withWrites, i)]).concat([['all', '100%', ...cells(readOnly), ...cells(withWrites)]]),
      [0, 1],
    ),
  );
  const perRequest = (ms: number | undefined, n: number) => (ms === undefined || n === 0 ? '-' : `${fmt(ms / n, 3)} ms`);
  for (const [name, m] of [['read-only', readOnly], [withName, withWrites]] as const) {
    if (!m) continue;
    log(`CPU per request, mix ${name}: service ${perRequest(cpuOf(m, 'svcCpu'), mixRequests(m))} + PostgreSQL ${perRequest(cpuOf(m, 'pgCpu'), mixRequests(m))}${m.writes ? ` (${m.writes} writes)` : ''}`);
  }
  const writeRatio = withWrites ? mixRps(withWrites) / mixRps(readOnly) : Number.NaN;
  log(`mix with ${withName} / read-only = ${fmt(writeRatio, 3)} (target ≥ 0.9${writesPerSecond === 0 ? '; no writes: the passes\' own drift' : ''})`);
  log(`targets: search/images ≥ 25% of Hono, images/:id ≥ 50%, p99 ≤ 10 ms at half load; machine: ${availableParallelism()} cores`);
  if (memory) {
    log(
      `service RSS: ${fmt(memory.startMb, 0)} MiB after its warm start, max ${fmt(memory.maxMb, 0)} MiB, ${fmt(memory.endMb, 0)} MiB at the end of the mix; ` +
        `levelled (within 5% of the max) after ${fmt(memory.levelledAfterS, 0)} s (${memory.samples} samples)`,
    );
  }
  log(`load average (1/5/15 min): ${Object.entries(loads).map(([k, v]) => `${k} ${v}`).join('; ')}`);
  console.log(JSON.stringify(loadJson(figures, writeRatio)));
}

/** The figures as the one JSON line a run prints last (for scripts comparing runs). */
function loadJson({ images, routes, ceiling, readOnly, withWrites, writesPerSecond, loads, memory }: LoadFigures, writeRatio: number): Record<string, unknown> {
  const byRoute = Object.fromEntries(
    routes.map(({ route, full, half, fullCpuUs }) => [
      route,
      {
        rps: round(full.rps, 1),
        of_hono: round(full.rps / ceiling.full.rps, 3),
        cpu_us: round(fullCpuUs, 1),
        p99_ms: round(full.p99, 2),
        half_p99_ms: round(half.p99, 2),
        half_p999_ms: round(half.p999, 2),
        errors: errorsOf(full) + errorsOf(half),
      },
    ]),
  );
  return {
    images,
    hono_ceiling_rps: round(ceiling.full.rps, 1),
    hono_cpu_us: round(ceiling.fullCpuUs, 1),
    hono_half_p99_ms: round(ceiling.half.p99, 2),
    routes: byRoute,
    mix_rps: round(mixRps(readOnly), 1),
    mix_1wps_rps: round(withWrites ? mixRps(withWrites) : Number.NaN, 1),
    write_ratio: round(writeRatio, 3),
    writes_per_second: writesPerSecond,
    mix_p99_ms: round(mixP99(readOnly), 2),
    mix_1wps_p99_ms: round(withWrites ? mixP99(withWrites) : Number.NaN, 2),
    rss_start_mb: round(memory?.startMb ?? Number.NaN, 0),
    rss_max_mb: round(memory?.maxMb ?? Number.NaN, 0),
    rss_end_mb: round(memory?.endMb ?? Number.NaN, 0),
    rss_levelled_s: round(memory?.levelledAfterS ?? Number.NaN, 0),
    load_end: loads.end,
  };
}
