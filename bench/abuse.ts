/**
 * `npm run bench -- abuse [--seconds S] [--rate R] [--connections C] [--images N] [--bombs B]
 *  [--svg-bombs V] [--slowloris L] [--side PX] [--cpu-prof DIR]`: what abuse does to normal traffic. The service (`src/main.ts` as
 * a child process, a demo board of N images, limits off but the per-client bound of reverse
 * searches, `TRUST_PROXY=true`) serves the same normal traffic, an open
 * loop of R requests a second over C keep-alive connections (image pages and image searches,
 * through the load driver of bench/harness/), four times in one run:
 *
 * 1. alone (the baseline);
 * 2. beside B concurrent pixel-bomb reverse searches: a PNG of PX×PX grey pixels (a few hundred KB)
 *    posted as `image` to POST /api/v1/json/search/reverse, again as soon as each is answered;
 * 3. beside V concurrent SVG render bombs (issue 35: 233 bytes declaring 9,999 × 10,000 with a
 *    turbulence and a blur) posted the same way, each loop as a client of its own, so that the
 *    per-client bound of reverse searches lets them all reach the decoders;
 * 4. beside L slowloris connections, each dripping a header line every 2 s and replaced when the
 *    server cuts it off.
 *
 * Per phase: normal traffic's p50/p99/max and errors, the share of its requests answered within
 * the measured window (the driver's latencies cover only answered requests, so a service that
 * stalls shows a small share, not a large p99), the service's largest RSS, the service process's
 * CPU time over the phase's wall time (what the abuse costs the service, a figure that other work
 * on a shared machine does not inflate as it does the p99), and what the abuse got (the bombs'
 * answers: statuses and times). RSS is the service's with its decode children's (sandbox/pool.ts).
 * `--cpu-prof DIR` has the service write a V8 CPU profile there; each phase's start is printed in
 * seconds since the service started, for `bench/harness/profile.ts --from S --last S`. Targets: normal p99 under abuse within 2× of the baseline's, RSS within 1.5 GB, an SVG bomb
 * answered within 5 s. The
 * last line is one JSON object of the figures.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { table } from '../src/lib/table.js';
import { pixelBomb, pixelBombs, sampleRss, serviceRssMb, slowloris, svgBomb, type BombResult } from './abuse/attacks.js';
import type { DriverResult } from './harness/driver.js';
import { drive } from './harness/http.js';
import { startService } from './harness/service.js';
import { loadAverage, processCpuMs } from './harness/stats.js';

const CACHE = join(import.meta.dirname, '.cache', 'abuse');
const API = '/api/v1/json';

function options() {
  const { values } = parseArgs({
    options: {
      seconds: { type: 'string', default: '20' },
      rate: { type: 'string', default: '50' },
      connections: { type: 'string', default: '8' },
      images: { type: 'string', default: '300' },
      bombs: { type: 'string', default: '8' },
      'svg-bombs': { type: 'string', default: '8' },
      slowloris: { type: 'string', default: '500' },
      side: { type: 'string', default: '16000' },
      'cpu-prof': { type: 'string' },
    },
  });
  return {
    seconds: Number(values.seconds),
    rate: Number(values.rate),
    connections: Number(values.connections),
    images: Number(values.images),
    bombs: Number(values.bombs),
    svgBombs: Number(values['svg-bombs']),
    slowloris: Number(values.slowloris),
    side: Number(values.side),
    cpuProf: values['cpu-prof'],
  };
}

/** Normal traffic: every image's page, and image searches of several shapes and pages. */
async function normalPaths(origin: string): Promise<string[]> {
  const ids: number[] = [];
  for (let page = 1; page <= 6; page++) {
    const body = (await (await fetch(`${origin}${API}/search/images?q=*&per_page=50&page=${page}`)).json()) as { images: { id: number }[] };
    ids.push(...body.images.map((i) => i.id));
    if (body.images.length < 50) break;
  }
  if (ids.length === 0) throw new Error('the board has no images');
  const searches = ['*', 'safe', 'score.gt:0', 'safe,-solo', 'created_at.gte:2000-01-01'].flatMap((q) =>
    [1, 2, 3].map((page) => `${API}/search/images?q=${encodeURIComponent(q)}&page=${page}`),
  );
  const paths: string[] = [];
  for (let i = 0; i < 600; i++) paths.push(i % 3 === 2 ? searches[i % searches.length]! : `${API}/images/${ids[i % ids.length]}`);
  return paths;
}

interface Phase {
  name: string;
  /** Undefined when the normal traffic could not complete at all (the driver gave up). */
  normal: DriverResult | undefined;
  rssMaxMb: number;
  /** The service process's CPU time over the phase's wall time (PostgreSQL apart): what the abuse costs it, whatever else the machine runs. */
  cpuShare: number;
  abuse: string;
}

/** A latency, or `-` when there is none (no answer in the window: the driver sends null). */
const ms = (x: number | null | undefined) => (x == null || !Number.isFinite(x) ? '-' : x.toFixed(1));
/** Requests answered in the measured window over those the open loop sent in it. */
const answeredShare = (p: Phase, o: { rate: number; seconds: number }) => (p.normal ? p.normal.requests / (o.rate * o.seconds) : 0);
/** A phase's normal p99 over the baseline's, or `-` when either could not be measured. */
const ratio = (p: Phase, base: Phase) => (p.normal?.p99 != null && base.normal?.p99 != null ? (p.normal.p99 / base.normal.p99).toFixed(2) : '-');
/** The q-quantile of some answer times, or NaN when there are none. */
const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const bombReport = (r: BombResult) =>
  `bombs sent ${r.sent}, answers ${JSON.stringify(r.statuses)} in ${ms(quantile(r.answerMs, 0.5))} ms (median), ${ms(quantile(r.answerMs, 1))} ms (max)`;

async function main(): Promise<void> {
  const o = options();
  console.log(`abuse: normal traffic ${o.rate} req/s over ${o.connections} connections, ${o.seconds} s per phase; ${o.bombs} pixel bombs of ${o.side}²; ${o.svgBombs} SVG bombs; ${o.slowloris} slowloris connections (load ${loadAverage()})`);
  const bomb = pixelBomb(o.side);
  console.log(`pixel bomb: ${o.side}×${o.side} grey PNG of ${(bomb.length / 1024).toFixed(0)} KB`);
  const started = Date.now();
  const nodeFlags = o.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProf}`] : [];
  const target = await startService({
    dataDir: join(CACHE, `board-${o.images}`),
    logFile: join(CACHE, `service-${o.images}.log`),
    images: o.images,
    logLevel: 'warn',
    log: console.log,
    nodeFlags,
    // The SVG bombs come from as many clients as loops (X-Forwarded-For), so each reaches the decoders.
    env: { TRUST_PROXY: 'true' },
  });
  const pid = target.pid!;
  const port = Number(new URL(target.origin).port);
  const phases: Phase[] = [];
  try {
    const paths = await normalPaths(target.origin);
    const job = { origin: target.origin, paths, connections: o.connections, seconds: o.seconds, warmupSeconds: 2, rate: o.rate };
    const measure = async (name: string, abuse: () => { stop(): Promise<string> }) => {
      const rss = sampleRss(pid);
      const cpuStart = processCpuMs(pid) ?? Number.NaN;
      const wallStart = Date.now();
      if (o.cpuProf) console.log(`${name}: begins ${((Date.now() - started) / 1000).toFixed(0)} s after the service was started`);
      const running = abuse();
      await sleep(2_000); // let the abuse take hold before the traffic is measured
      const normal = await drive(job).catch((err: unknown) => {
        console.log(`${name}: normal traffic did not complete: ${(err as Error).message}`);
        return undefined;
      });
      const report = await running.stop();
      const cpuShare = ((processCpuMs(pid) ?? Number.NaN) - cpuStart) / (Date.now() - wallStart);
      phases.push({ name, normal, rssMaxMb: rss.stop(), cpuShare, abuse: report });
      console.log(`${name}: p99 ${ms(normal?.p99)} ms, errors ${normal?.errors ?? '-'}, max RSS ${phases.at(-1)!.rssMaxMb.toFixed(0)} MB, service CPU ${(cpuShare * 100).toFixed(0)}%; ${report} (load ${loadAverage()})`);
      await sleep(3_000);
    };

    const rssStart = serviceRssMb(pid);
    await measure('baseline', () => ({ stop: async () => 'no abuse' }));
    await measure('pixel bombs', () => {
      const bombs = pixelBombs(target.origin, bomb, o.bombs);
      return { stop: async () => (await bombs.stop(), bombReport(bombs.result)) };
    });
    const rssAfterBombs = serviceRssMb(pid);
    let svgAnswers: number[] = [];
    await measure('SVG bombs', () => {
      const bombs = pixelBombs(target.origin, svgBomb(), o.svgBombs, { type: 'image/svg+xml', name: 'bomb.svg', ownClients: true });
      return { stop: async () => (await bombs.stop(), (svgAnswers = bombs.result.answerMs), bombReport(bombs.result)) };
    });
    await measure('slowloris', () => {
      const lorises = slowloris(port, o.slowloris);
      return {
        stop: async () => {
          const open = lorises.open();
          await lorises.stop();
          return `slowloris connections opened ${lorises.result.opened} (${open} open at the end), cut off ${JSON.stringify(lorises.result.endings)}`;
        },
      };
    });

    const [base, bombs, svgs, lorises] = phases as [Phase, Phase, Phase, Phase];
    console.log('');
    console.log(
      table(
        ['phase', 'requests', 'answered', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'p99 / baseline', 'max RSS MB', 'service CPU'],
        phases.map((p) => [p.name, String(p.normal?.requests ?? '-'), `${(answeredShare(p, o) * 100).toFixed(0)}%`, ms(p.normal?.p50), ms(p.normal?.p99), ms(p.normal?.max), String(p.normal?.errors ?? '-'), ratio(p, base), p.rssMaxMb.toFixed(0), `${(p.cpuShare * 100).toFixed(0)}%`]),
        [0],
      ),
    );
    for (const p of phases) console.log(`${p.name}: ${p.abuse}`);
    console.log(`RSS: ${rssStart.toFixed(0)} MB at start, ${rssAfterBombs.toFixed(0)} MB after the bombs; targets: p99 within 2× of the baseline, RSS within 1536 MB, an SVG bomb answered within 5 s`);
    const r = (x: number | null | undefined) => (x == null || !Number.isFinite(x) ? null : Number(x.toFixed(2)));
    console.log(
      JSON.stringify({
        baseline_p99_ms: r(base.normal?.p99),
        bombs_p99_ms: r(bombs.normal?.p99),
        svg_bombs_p99_ms: r(svgs.normal?.p99),
        slowloris_p99_ms: r(lorises.normal?.p99),
        bombs_p99_ratio: r(Number(ratio(bombs, base))),
        svg_bombs_p99_ratio: r(Number(ratio(svgs, base))),
        slowloris_p99_ratio: r(Number(ratio(lorises, base))),
        normal_errors: phases.reduce((n, p) => n + (p.normal?.errors ?? 0), 0),
        baseline_answered_share: r(answeredShare(base, o)),
        bombs_answered_share: r(answeredShare(bombs, o)),
        svg_bombs_answered_share: r(answeredShare(svgs, o)),
        svg_bomb_answer_p50_ms: r(quantile(svgAnswers, 0.5)),
        svg_bomb_answer_max_ms: r(quantile(svgAnswers, 1)),
        svg_bombs_answered: svgAnswers.length,
        slowloris_answered_share: r(answeredShare(lorises, o)),
        rss_start_mb: Math.round(rssStart),
        rss_max_baseline_mb: Math.round(base.rssMaxMb),
        rss_max_bombs_mb: Math.round(bombs.rssMaxMb),
        rss_after_bombs_mb: Math.round(rssAfterBombs),
        rss_max_svg_bombs_mb: Math.round(svgs.rssMaxMb),
        rss_max_slowloris_mb: Math.round(lorises.rssMaxMb),
        baseline_cpu_share: r(base.cpuShare),
        bombs_cpu_share: r(bombs.cpuShare),
        svg_bombs_cpu_share: r(svgs.cpuShare),
        slowloris_cpu_share: r(lorises.cpuShare),
      }),
    );
  } finally {
    await target.stop();
  }
}

await main();
