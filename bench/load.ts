/**
 * `npm run bench -- load [--url URL] [--seconds S] [--connections C] [--warmup W] [--images N]
 *  [--max-requests R] [--log-level L] [--ceiling-seconds S]`: the whole service under a mixed
 * read and search workload, beside the bare Hono ceiling of the same stack.
 *
 * 1. The target: `--url` (a running server on a loopback address), or by default the service
 *    itself (`src/main.ts` as a child process, `DEMO_IMAGES=N` (default 300), `RATE_LIMITS=off`,
 *    a free port, its data kept in `bench/.cache/load/board-<N>/` so the demo board is made once),
 *    started here, waited for until `/readyz` says ready, and stopped with SIGTERM at the end.
 * 2. Discovery through the API: image ids, tag names and slugs, forums and topics, system filters.
 * 3. A fixed mix of GET paths drawn with a seeded generator: 40% image show, 25% image search
 *    (tags, AND, OR, negation, wildcards, ranges, every kind of sort, pages and page sizes, Default
 *    and Everything filters), 10% tag show, 10% comment and post search, 10% featured image,
 *    forums, topics and filters, 5% oEmbed.
 * 4. The load driver of bench/harness/ in a process of its own: C keep-alive connections, each
 *    sending its next path as soon as the previous answer is read, W seconds of warm-up, then
 *    S seconds measured (at most R requests). Per route group and overall: requests/s, p50/p90/p99
 *    and max latency, non-2xx answers by status, socket errors by code.
 * 5. In the same run, the same driver and connections against a trivial Hono app answering a small
 *    constant JSON on another port: the ceiling of the stack, and the service's ratio to it.
 *
 * Loopback only: the target must be 127.0.0.0/8, ::1 or localhost. The machine's load average is
 * printed with every phase, and the CPU used by the service, its PostgreSQL and the driver during
 * the measured window (when this run started the service). The last line is one JSON object:
 * `{"rps", "p50_ms", "p99_ms", "errors", "hono_ceiling_rps", "ratio"}`.
 */
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { postmasterPid } from '../src/db/embedded-postgres.js';
import { mulberry32 } from '../src/lib/random.js';
import { table } from '../src/lib/table.js';
import type { Figures } from './harness/driver.js';
import { drive, startHonoCeiling } from './harness/http.js';
import { startService, type Target } from './harness/service.js';
import { loadAverage, processCpuMs, serverCpuMs } from './harness/stats.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, '.cache', 'load');
const API = '/api/v1/json';

// ---------------------------------------------------------------------------------------------
// Route groups and their shares of the mix

const GROUPS = ['image show', 'image search', 'tag show', 'comment/post search', 'featured/forums/filters', 'oembed'] as const;
type Group = (typeof GROUPS)[number];
const SHARES: Record<Group, number> = {
  'image show': 40,
  'image search': 25,
  'tag show': 10,
  'comment/post search': 10,
  'featured/forums/filters': 10,
  oembed: 5,
};
/** Paths in the mix; connections walk it from different offsets. */
const MIX_SIZE = 8192;

// ---------------------------------------------------------------------------------------------
// Small helpers

function pick<T>(random: () => number, xs: readonly T[]): T {
  if (xs.length === 0) throw new Error('pick from an empty list');
  return xs[Math.floor(random() * xs.length)]!;
}

const fmt = (x: number, digits = 1): string => (Number.isFinite(x) ? x.toFixed(digits) : '-');
const round = (x: number, digits: number): number => (Number.isFinite(x) ? Number(x.toFixed(digits)) : 0);
function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

// ---------------------------------------------------------------------------------------------
// The service under test

const log = (msg: string) => console.log(msg);

// ---------------------------------------------------------------------------------------------
// Discovery and the mix

interface Board {
  imageIds: number[];
  tagNames: string[];
  tagSlugs: string[];
  forums: string[];
  topics: { forum: string; slug: string }[];
  filterIds: number[];
  everything: number | undefined;
  defaultFilter: number | undefined;
  baseUrl: string;
}

// biome-ignore lint/suspicious/noExplicitAny: discovery reads a few fields of the API's answers
async function getJson(origin: string, path: string): Promise<any> {
  const res = await fetch(origin + path);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`discovery: GET ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

async function discover(origin: string): Promise<Board> {
  const filters = (await getJson(origin, `${API}/filters/system`)).filters as { id: number; name: string }[];
  const everything = filters.find((f) => f.name === 'Everything')?.id;
  const defaultFilter = filters.find((f) => f.name === 'Default')?.id;
  const imageIds = new Set<number>();
  const tagNames = new Set<string>();
  let baseUrl = origin;
  for (let page = 1; page <= 20; page++) {
    const q = `${API}/search/images?q=*&per_page=50&page=${page}${everything ? `&filter_id=${everything}` : ''}`;
    const body = await getJson(origin, q);
    const batch = body.images as { id: number; tags: string[]; view_url?: string }[];
    for (const image of batch) {
      imageIds.add(image.id);
      for (const t of image.tags) tagNames.add(t);
      if (image.view_url) baseUrl = new URL(image.view_url).origin;
    }
    if (batch.length < 50) break;
  }
  const tagSlugs = new Set<string>();
  for (let page = 1; page <= 4; page++) {
    const body = await getJson(origin, `${API}/search/tags?q=*&per_page=50&page=${page}`);
    const batch = body.tags as { slug: string }[];
    for (const t of batch) tagSlugs.add(t.slug);
    if (batch.length < 50) break;
  }
  const forums = ((await getJson(origin, `${API}/forums`)).forums as { short_name: string }[]).map((f) => f.short_name);
  const topics: { forum: string; slug: string }[] = [];
  for (const forum of forums.slice(0, 5)) {
    const body = await getJson(origin, `${API}/forums/${forum}/topics`);
    for (const t of (body.topics as { slug: string }[]).slice(0, 5)) topics.push({ forum, slug: t.slug });
  }
  if (imageIds.size === 0) throw new Error('discovery: the board has no visible images');
  return {
    imageIds: [...imageIds],
    tagNames: [...tagNames],
    tagSlugs: [...tagSlugs],
    forums,
    topics,
    filterIds: filters.map((f) => f.id),
    everything,
    defaultFilter,
    baseUrl,
  };
}

function buildMix(board: Board, size: number): { paths: string[]; groupOf: number[] } {
  const random = mulberry32(20_240_601);
  const enc = encodeURIComponent;
  const tags = board.tagNames.length > 0 ? board.tagNames : ['safe'];
  const filterParam = () => {
    const r = random();
    if (r < 0.45 && board.everything !== undefined) return `&filter_id=${board.everything}`;
    if (r < 0.55 && board.defaultFilter !== undefined) return `&filter_id=${board.defaultFilter}`;
    return ''; // the anonymous default
  };
  const imageQuery = (): string => {
    const a = pick(random, tags);
    const b = pick(random, tags);
    const c = pick(random, tags);
    const prefix = a.replace(/[^a-z]/g, '').slice(0, 2) || 's';
    const kinds = [
      () => a,
      () => `${a}, ${b}`,
      () => `${a}, ${b}, ${c}`,
      () => `${a} || ${b} || ${c}`,
      () => `${a}, -${b}`,
      () => `(${a} || ${b}), -${c}`,
      () => `${a}, score.gt:${Math.floor(random() * 20)}`,
      () => `${prefix}*`,
      () => `*${prefix}*`,
      () => `width.gte:${pick(random, [300, 600, 1000])}`,
      () => `aspect_ratio.gt:1, ${a}`,
      () => `created_at.gte:${pick(random, ['2020-01-01', '2023-01-01', '3 years ago'])}`,
      () => `faves.gte:1 || upvotes.gte:5`,
      () => '*',
    ];
    return pick(random, kinds)();
  };
  const sortParam = () => {
    const sf = pick(random, ['', 'score', 'created_at', 'first_seen_at', 'wilson_score', 'faves', 'width', 'tag_count', 'random', `random:${Math.floor(random() * 1000)}`, 'id']);
    const sd = pick(random, ['', 'asc', 'desc']);
    return `${sf ? `&sf=${enc(sf)}` : ''}${sd ? `&sd=${sd}` : ''}`;
  };
  const pageParam = () => {
    const perPage = pick(random, [15, 25, 50]);
    const page = random() < 0.6 ? 1 : 1 + Math.floor(random() * 5);
    return `&per_page=${perPage}${page > 1 ? `&page=${page}` : ''}`;
  };
  const image = () => pick(random, board.imageIds);
  const makers: Record<Group, () => string> = {
    'image show': () => `${API}/images/${image()}`,
    'image search': () => `${API}/search/images?q=${enc(imageQuery())}${sortParam()}${pageParam()}${filterParam()}`,
    'tag show': () => `${API}/tags/${enc(pick(random, board.tagSlugs.length > 0 ? board.tagSlugs : ['safe']))}`,
    'comment/post search': () => {
      const r = random();
      if (r < 0.3) return `${API}/search/comments?q=${enc('*')}${random() < 0.5 ? '&page=2' : ''}`;
      if (r < 0.6) return `${API}/search/comments?q=${enc(`image_id:${image()}`)}`;
      if (r < 0.85) return `${API}/search/posts?q=${enc('*')}${random() < 0.5 ? '&page=2' : ''}`;
      if (r < 0.92 && board.forums.length > 0) return `${API}/search/posts?q=${enc(`forum:${pick(random, board.forums)}`)}`;
      return `${API}/search/comments?q=${enc(`image.tags:${pick(random, tags)}`)}`;
    },
    'featured/forums/filters': () => {
      const r = random();
      if (r < 0.25) return `${API}/images/featured`;
      if (r < 0.4) return `${API}/forums`;
      if (r < 0.5 && board.forums.length > 0) return `${API}/forums/${pick(random, board.forums)}`;
      if (r < 0.6 && board.forums.length > 0) return `${API}/forums/${pick(random, board.forums)}/topics`;
      if (r < 0.7 && board.topics.length > 0) {
        const t = pick(random, board.topics);
        return `${API}/forums/${t.forum}/topics/${t.slug}/posts`;
      }
      if (r < 0.85) return `${API}/filters/system`;
      return `${API}/filters/${pick(random, board.filterIds)}`;
    },
    oembed: () => `${API}/oembed?url=${enc(`${board.baseUrl}/images/${image()}`)}`,
  };
  const total = GROUPS.reduce((s, g) => s + SHARES[g], 0);
  const paths: string[] = [];
  const groupOf: number[] = [];
  for (let i = 0; i < size; i++) {
    let r = random() * total;
    let g = 0;
    while (g < GROUPS.length - 1 && r >= SHARES[GROUPS[g]!]) r -= SHARES[GROUPS[g++]!];
    paths.push(makers[GROUPS[g]!]());
    groupOf.push(g);
  }
  return { paths, groupOf };
}

/**
 * Before the run, a sample of the mix (the first paths of each group, four at a time): paths that
 * do not answer 2xx are shown, and stay in the mix to be counted as errors.
 */
async function probe(origin: string, paths: string[], groupOf: number[], perGroup = 12): Promise<string[]> {
  const sample: string[] = [];
  const taken = new Map<number, number>();
  for (let i = 0; i < paths.length; i++) {
    const g = groupOf[i]!;
    if ((taken.get(g) ?? 0) >= perGroup) continue;
    taken.set(g, (taken.get(g) ?? 0) + 1);
    sample.push(paths[i]!);
  }
  const problems: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < sample.length) {
      const path = sample[next++]!;
      const res = await fetch(origin + path);
      const text = await res.text();
      if (res.status < 200 || res.status >= 300) problems.push(`${res.status} ${path} ${text.slice(0, 160)}`);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Main

function options() {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    strict: true,
    options: {
      url: { type: 'string' },
      seconds: { type: 'string' },
      'ceiling-seconds': { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      images: { type: 'string' },
      'max-requests': { type: 'string' },
      'log-level': { type: 'string' },
    },
  });
  const int = (v: string | undefined, name: string, fallback: number, min: number, max: number) => {
    if (v === undefined) return fallback;
    const n = Number(v.replaceAll('_', ''));
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name} must be a whole number from ${min} to ${max}`);
    return n;
  };
  let url: string | undefined;
  if (values.url !== undefined) {
    const parsed = new URL(values.url);
    if (parsed.protocol !== 'http:') throw new Error('--url must be an http:// URL');
    if (!isLoopback(parsed.hostname)) throw new Error(`--url must be a loopback address (127.0.0.0/8, ::1, localhost), got ${parsed.hostname}`);
    url = parsed.origin;
  }
  const seconds = int(values.seconds, 'seconds', 15, 1, 600);
  return {
    url,
    seconds,
    ceilingSeconds: int(values['ceiling-seconds'], 'ceiling-seconds', seconds, 1, 600),
    connections: int(values.connections, 'connections', 32, 1, 1024),
    warmup: int(values.warmup, 'warmup', 2, 0, 60),
    images: int(values.images, 'images', 300, 20, 100_000),
    maxRequests: int(values['max-requests'], 'max-requests', 2_000_000, 1, 100_000_000),
    logLevel: values['log-level'] ?? 'info',
  };
}

function describeCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  return entries.length === 0 ? '-' : entries.map(([k, v]) => `${k}×${v}`).join(' ');
}

async function main(): Promise<void> {
  const o = options();
  log(`load: ${o.connections} connections, ${o.warmup} s warm-up + ${o.seconds} s measured, ceiling ${o.ceilingSeconds} s (load ${loadAverage()})`);
  let target: Target | undefined;
  const cleanup = async () => {
    await target?.stop();
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  process.once('SIGTERM', () => void cleanup().finally(() => process.exit(143)));
  try {
    target = o.url ? { origin: o.url, stop: async () => {} } : await startService({ dataDir: join(CACHE, `board-${o.images}`), logFile: join(CACHE, `service-${o.images}.log`), images: o.images, logLevel: o.logLevel, log });
    const board = await discover(target.origin);
    log(
      `board: ${board.imageIds.length} visible images, ${board.tagNames.length} tag names, ${board.tagSlugs.length} tag slugs, ` +
        `${board.forums.length} forums, ${board.topics.length} topics, ${board.filterIds.length} system filters`,
    );
    const mix = buildMix(board, MIX_SIZE);
    const problems = await probe(target.origin, mix.paths, mix.groupOf);
    if (problems.length > 0) log(`paths that do not answer 2xx (kept in the mix; counted as errors):\n  ${problems.slice(0, 20).join('\n  ')}`);

    const pg = target.dataDir ? postmasterPid(join(target.dataDir, 'postgres')) : undefined;
    const startLoad = loadAverage();
    log(`driving the service (load ${startLoad})`);
    // CPU clocks of the service and its PostgreSQL over the measured window (Linux /proc)
    const svcPid = target.pid;
    const clocks = () => ({ at: performance.now(), svc: svcPid ? processCpuMs(svcPid) : undefined, pg: pg ? serverCpuMs(pg) : undefined });
    let windowStart: ReturnType<typeof clocks> | undefined;
    let windowEnd: ReturnType<typeof clocks> | undefined;
    const service = await drive(
      {
        origin: target.origin,
        ...mix,
        groups: [...GROUPS],
        connections: o.connections,
        seconds: o.seconds,
        warmupSeconds: o.warmup,
        maxRequests: o.maxRequests,
      },
      (phase) => {
        if (phase === 'measure') windowStart = clocks();
        else windowEnd = clocks();
      },
    );
    const afterLoad = loadAverage();
    const spent = (key: 'svc' | 'pg') => {
      const a = windowStart?.[key];
      const b = windowEnd?.[key];
      return a === undefined || b === undefined ? undefined : b - a;
    };
    const svcCpu = spent('svc');
    const pgCpu = spent('pg');
    const windowSeconds = windowStart && windowEnd ? (windowEnd.at - windowStart.at) / 1000 : service.seconds;
    await target.stop();
    target = undefined;

    const ceilingServer = await startHonoCeiling();
    const ceilingLoad = loadAverage();
    log(`driving the bare Hono ceiling (load ${ceilingLoad})`);
    // The ceiling server lives in this process, which does nothing else meanwhile: its CPU clock.
    let ceilingCpu0: NodeJS.CpuUsage | undefined;
    let ceilingCpuMs: number | undefined;
    const ceiling = await drive(
      {
        origin: ceilingServer.origin,
        paths: ['/'],
        groupOf: [0],
        groups: ['hono'],
        connections: o.connections,
        seconds: o.ceilingSeconds,
        warmupSeconds: o.warmup,
        maxRequests: o.maxRequests,
      },
      (phase) => {
        if (phase === 'measure') ceilingCpu0 = process.cpuUsage();
        else if (ceilingCpu0) {
          const d = process.cpuUsage(ceilingCpu0);
          ceilingCpuMs = (d.user + d.system) / 1000;
        }
      },
    ).finally(() => ceilingServer.close());
    const endLoad = loadAverage();

    const errorsOf = (s: Figures) => s.errors + Object.values(s.socketErrors).reduce((a, b) => a + b, 0);
    const non2xx = (s: Figures) => Object.fromEntries(Object.entries(s.statuses).filter(([status]) => !status.startsWith('2')));
    const row = (name: string, share: string, s: Figures, seconds: number): string[] => [
      name,
      share,
      String(s.requests),
      fmt(s.requests / seconds),
      fmt(s.p50, 2),
      fmt(s.p90, 2),
      fmt(s.p99, 2),
      fmt(s.max, 1),
      String(errorsOf(s)),
      `${describeCounts(non2xx(s))}${Object.keys(s.socketErrors).length > 0 ? ` socket: ${describeCounts(s.socketErrors)}` : ''}`,
    ];
    const rows = GROUPS.map((g, i) => row(g, `${SHARES[g]}%`, service.byGroup[i]!, service.seconds));
    rows.push(row('service (all)', '100%', service, service.seconds));
    rows.push(row('bare Hono ceiling', '-', ceiling, ceiling.seconds));
    log('');
    log(table(['route group', 'share', 'requests', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'non-2xx by status / socket errors'], rows, [0, 9]));
    log('');
    const rps = service.requests / service.seconds;
    const ceilingRps = ceiling.requests / ceiling.seconds;
    log(`service: ${fmt(rps)} req/s over ${fmt(service.seconds, 1)} s with ${o.connections} connections; ${fmt(service.bytes / service.seconds / 1024 / 1024, 2)} MiB/s of bodies`);
    log(`ceiling: ${fmt(ceilingRps)} req/s; service/ceiling = ${fmt(rps / ceilingRps, 3)}`);
    if (service.stoppedByCount || ceiling.stoppedByCount) log(`stopped early by --max-requests ${o.maxRequests}`);
    const cores = (ms: number | undefined) => (ms === undefined || Number.isNaN(ms) ? '-' : `${fmt(ms / 1000, 1)} s (${fmt(ms / 1000 / windowSeconds, 2)} cores)`);
    log(`CPU over the measured ${fmt(windowSeconds, 1)} s: service ${cores(svcCpu)}, its PostgreSQL ${cores(pgCpu)}, load driver ${cores(service.cpuMs)} on a ${availableParallelism()}-core machine`);
    // CPU per answered request depends far less on what else the machine runs than req/s does.
    const perRequest = (ms: number | undefined, n: number) => (ms === undefined || n === 0 ? '-' : `${fmt(ms / n, 3)} ms`);
    log(
      `CPU per request: service ${perRequest(svcCpu, service.requests)} + PostgreSQL ${perRequest(pgCpu, service.requests)}; ` +
        `bare Hono ${perRequest(ceilingCpuMs, ceiling.requests)} (ceiling server ${ceilingCpuMs === undefined ? '-' : `${fmt(ceilingCpuMs / 1000, 1)} s`}, driver ${fmt(ceiling.cpuMs / 1000, 1)} s)`,
    );
    log(`load average (1/5/15 min): start ${startLoad}, after the service drive ${afterLoad}, before the ceiling ${ceilingLoad}, end ${endLoad}`);
    console.log(
      JSON.stringify({
        rps: round(rps, 1),
        p50_ms: round(service.p50, 2),
        p99_ms: round(service.p99, 2),
        errors: errorsOf(service),
        hono_ceiling_rps: round(ceilingRps, 1),
        ratio: round(rps / ceilingRps, 3),
      }),
    );
  } finally {
    await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
