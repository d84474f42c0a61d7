/**
 * `npm run bench -- load [--bulk N | --images N | --url URL] [--seconds S] [--mix-seconds S]
 *  [--connections C] [--warmup W] [--max-requests R] [--log-level L] [--cpu-prof DIR] [--node-flag F]…
 *  [--only ROUTE|mix] [--writes N]`: the whole service, route by route and under a mixed workload with and
 *  without writes, beside the bare Hono ceiling of the same stack.
 *
 * 1. The target: `--url` (a running server on a loopback address); `--bulk N`, the bulk-seeded
 *    board of N images of the search benchmark (`bench/.cache/board-<N>/`, built once; the 1M
 *    board is `--bulk 1000000`), served by `src/main.ts` as a child process; or by default the
 *    demo board of `--images N` (default 300) in `bench/.cache/load/board-<N>/`. The service runs
 *    with `npm start`'s node flags and `RATE_LIMITS=off` on a free port, is waited for until
 *    `/readyz` says ready and then until its image cache's warm start has ended (so the phases
 *    measure the steady state), and is stopped with SIGTERM at the end. `--cpu-prof DIR` has it write
 *    V8 CPU profiles there (`npx tsx bench/harness/profile.ts` breaks one down by stage; each
 *    phase's start time is printed), and each `--node-flag` is one more flag of its node (e.g.
 *    `--trace-gc`, written to the service's log file); `--only ROUTE` measures that route alone
 *    and the read-only mix, `--only mix` both mixes and no route alone. The search/images route
 *    sends tag queries as clients do (one to three tags, AND, OR, negation, default and score
 *    order, pages 1–5); the engine's heavy kinds (match-all sorts, infix wildcards, ranges over
 *    every image) are in the mix.
 * 2. Discovery through the API: image ids, tag names and slugs, forums and topics, system
 *    filters; a board without a featured image gets one.
 * 3. Each hot read alone (search/images, images/:id, search/tags, search/comments, featured,
 *    oEmbed) with seeded varied paths: at full load (C keep-alive connections, closed loop, W s
 *    warm-up, S s measured), then at half the requests a second it reached, offered on a
 *    schedule (open loop, latency counted from when a request was due). requests/s, p50, p99 and
 *    p99.9 of both, the ratio to the ceiling, the server's CPU a request at full load (user +
 *    system, from /proc; the figure to compare across runs on a busy machine), and the service's
 *    own event-loop delay (p99, max) and GC time over the half-load phase, from its `/metrics`
 *    (`bench/load/loop-stats.ts`).
 * 4. The mix of GET paths (40% image show, 25% image search, 10% tag show, 10% comment and post
 *    search, 10% featured image, forums, topics and filters, 5% oEmbed) at full load for
 *    `--mix-seconds` read-only and as long with one tag change a second written to the service's
 *    database (`bench/load/writer.ts`; `--writes N` for N a second, 0 for the control run whose
 *    passes differ in nothing): the ratio of the two read throughputs. Each runs as two
 *    passes of half that time in the order read-only, writes, writes, read-only, after a warm-up
 *    of `--mix-seconds` (at least W), so that the caches warming over the mix (it asks many
 *    distinct searches) favour neither side; the warm-up and each pass are drives of their own,
 *    each starting its connections evenly spread over the mix, so that no pass inherits how
 *    another's connections bunched up. A group's p99 is the worse of its two passes. The
 *    service's RSS (VmRSS) is sampled every 5 s from its warm start to the end of the mix
 *    (`bench/load/rss.ts`): start, max, end and when it levelled are printed and in the JSON line.
 * 5. After the service stops, the same driver against a trivial Hono app answering a small
 *    constant JSON, at full and half load: the ceiling of the stack.
 *
 * Loopback only: the target must be 127.0.0.0/8, ::1 or localhost. The machine's load average is
 * printed with every phase, and the CPU per request of the service and its PostgreSQL in the mix.
 * The last line is one JSON object of the headline figures.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { postmasterPid } from '../src/db/embedded-postgres.js';
import { mulberry32 } from '../src/lib/random.js';
import { featureImage } from '../src/contexts/images/features.js';
import { openDatabase, type Database, type DatabaseHandle } from '../src/db/client.js';
import { drive, startHonoCeiling } from './harness/http.js';
import { startService, type Target } from './harness/service.js';
import { loadAverage, processCpuMs, serverCpuMs } from './harness/stats.js';
import { GROUPS, SHARES, fmt, printLoadReport, type Group, type MixPass, type MixRun, type RouteFigures } from './load/report.js';
import { loopStatsFrom } from './load/loop-stats.js';
import { type RssFigures, sampleRss } from './load/rss.js';
import { startWriter } from './load/writer.js';
import { openBoard } from './search/board.js';

const HERE = dirname(fileURLToPath(import.meta.url));
const CACHE = join(HERE, '.cache', 'load');
const log = (msg: string) => console.log(msg);
const API = '/api/v1/json';

// ---------------------------------------------------------------------------------------------
// Route groups and their shares of the mix

/** The hot reads, each also measured alone at full load and at half of it. */
const ROUTES = ['search/images', 'images/:id', 'search/tags', 'search/comments', 'featured', 'oembed'] as const;

type Route = (typeof ROUTES)[number];
/** Paths in the mix; connections walk it from different offsets. */
const MIX_SIZE = 8192;

// ---------------------------------------------------------------------------------------------
// Small helpers

function pick<T>(random: () => number, xs: readonly T[]): T {
  if (xs.length === 0) throw new Error('pick from an empty list');
  return xs[Math.floor(random() * xs.length)]!;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

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
  featured: number | undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: discovery reads a few fields of the API's answers
async function getJson(origin: string, path: string): Promise<any> {
  let res = await fetch(origin + path);
  // a service just started on a cold disk may answer 503 for a moment (its database slow to
  // answer while the engine reads its snapshot): discovery waits as a client would
  for (let attempt = 0; res.status === 503 && attempt < 30; attempt++) {
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(5, Number(res.headers.get('retry-after')) || 1)));
    res = await fetch(origin + path);
  }
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
    featured: ((await fetch(`${origin}${API}/images/featured`).then((r) => (r.status === 200 ? r.json() : undefined))) as { image?: { id: number } } | undefined)?.image?.id,
  };
}

/** Path makers of each group of the mix, and of each route measured alone. */
function pathMakers(board: Board, random: () => number): { mix: Record<Group, () => string>; routes: Record<Route, () => string> } {
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
  const tagSearch = () => {
    const [a, b, c] = [pick(random, tags), pick(random, tags), pick(random, tags)];
    return pick(random, [a, `${a}, ${b}`, `${a}, ${b}`, `${a}, ${b}, ${c}`, `${a}, -${b}`, `${a} || ${b}`]);
  };
  const tagQuery = () => {
    const name = pick(random, tags);
    const prefix = name.replace(/[^a-z]/g, '').slice(0, 2) || 's';
    return pick(random, ['*', name, `${prefix}*`, `images.gte:${pick(random, [1, 10, 100])}`, `category:${pick(random, ['rating', 'species', 'character', 'artist'])}`]);
  };
  const routes: Record<Route, () => string> = {
    // tag queries as clients send them (the engine's heavy kinds, match-all sorts, infix
    // wildcards and ranges over every image, stay in the mix)
    'search/images': () => `${API}/search/images?q=${enc(tagSearch())}${pick(random, ['', '', '&sf=score', '&sf=created_at&sd=asc'])}${pageParam()}${filterParam()}`,
    'images/:id': makers['image show'],
    'search/tags': () => `${API}/search/tags?q=${enc(tagQuery())}${random() < 0.3 ? '&page=2' : ''}`,
    'search/comments': () => (random() < 0.5 ? `${API}/search/comments?q=${enc('*')}${random() < 0.5 ? '&page=2' : ''}` : `${API}/search/comments?q=${enc(`image_id:${image()}`)}`),
    featured: () => `${API}/images/featured`,
    oembed: makers.oembed,
  };
  return { mix: makers, routes };
}

function buildMix(board: Board, size: number): { paths: string[]; groupOf: number[] } {
  const random = mulberry32(20_240_601);
  const makers = pathMakers(board, random).mix;
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

/** The paths of each route measured alone (`size` each, seeded). */
function buildRoutePaths(board: Board, size: number): Record<Route, string[]> {
  const random = mulberry32(20_240_602);
  const makers = pathMakers(board, random).routes;
  return Object.fromEntries(ROUTES.map((r) => [r, Array.from({ length: size }, makers[r])])) as Record<Route, string[]>;
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
      connections: { type: 'string' },
      warmup: { type: 'string' },
      images: { type: 'string' },
      'max-requests': { type: 'string' },
      'log-level': { type: 'string' },
      bulk: { type: 'string' },
      'mix-seconds': { type: 'string' },
      'cpu-prof': { type: 'string' },
      'node-flag': { type: 'string', multiple: true },
      only: { type: 'string' },
      writes: { type: 'string' },
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
  const seconds = int(values.seconds, 'seconds', 8, 1, 600);
  return {
    url,
    seconds,
    mixSeconds: int(values['mix-seconds'], 'mix-seconds', 15, 1, 600),
    bulk: values.bulk === undefined ? undefined : int(values.bulk, 'bulk', 1_000_000, 1_000, 10_000_000),
    cpuProf: values['cpu-prof'],
    nodeFlags: values['node-flag'] ?? [],
    only: values.only === undefined ? undefined : routeNamed(values.only),
    writes: int(values.writes, 'writes', 1, 0, 20),
    connections: int(values.connections, 'connections', 16, 1, 1024),
    warmup: int(values.warmup, 'warmup', 2, 0, 60),
    images: int(values.images, 'images', 300, 20, 100_000),
    maxRequests: int(values['max-requests'], 'max-requests', 2_000_000, 1, 100_000_000),
    logLevel: values['log-level'] ?? 'info',
  };
}

function routeNamed(name: string): Route | 'mix' {
  const route = [...ROUTES, 'mix' as const].find((r) => r === name);
  if (!route) throw new Error(`--only must be one of ${ROUTES.join(', ')}, mix`);
  return route;
}

/**
 * One route (or the ceiling) at full load, closed loop over `connections`, then at half the
 * requests a second it reached, offered on a schedule over the same connections (open loop).
 */
async function fullAndHalf(route: string, origin: string, paths: string[], o: Options, serverCpuMs: () => number | undefined, withMetrics = true): Promise<RouteFigures> {
  const job = { origin, paths, connections: o.connections, seconds: o.seconds, warmupSeconds: o.warmup, maxRequests: o.maxRequests };
  // wall-clock times, to find the phase in a CPU profile (`bench/harness/profile.ts --from`)
  log(`  ${route}: full load from ${new Date().toISOString()}`);
  let cpuAtStart: number | undefined;
  let cpuAtEnd: number | undefined;
  const full = await drive(job, (phase) => {
    if (phase === 'measure') cpuAtStart = serverCpuMs();
    else cpuAtEnd = serverCpuMs();
  });
  const fullCpuUs = cpuAtStart === undefined || cpuAtEnd === undefined || full.requests === 0 ? Number.NaN : ((cpuAtEnd - cpuAtStart) * 1000) / full.requests;
  // the service's figures from when the measured window opens
  let window: ReturnType<typeof loopStatsFrom> | undefined;
  const half = await drive({ ...job, warmupSeconds: 1, rate: Math.max(1, full.rps / 2) }, (phase) => {
    if (withMetrics && phase === 'measure') window = loopStatsFrom(origin);
  });
  const halfLoop = window ? await (await window).end() : undefined;
  const gc = halfLoop ? Object.values(halfLoop.gcMs).reduce((a, b) => a + b, 0) : Number.NaN;
  log(
    `  ${route}: ${fmt(full.rps)} req/s at full load (${fmt(fullCpuUs)} µs of server CPU a request); p99 ${fmt(half.p99, 2)} ms at ${fmt(full.rps / 2)} req/s` +
      `${halfLoop ? ` (event loop p99 ${fmt(halfLoop.loopP99Ms, 1)} ms, max ${fmt(halfLoop.loopMaxMs, 1)} ms, GC ${fmt(gc, 0)} ms)` : ''} (load ${loadAverage()})`,
  );
  return { route, full, half, fullCpuUs, ...(halfLoop ? { halfLoop } : {}) };
}

type Options = ReturnType<typeof options>;

/** The bulk board of `images` images (bench/search/board.ts), its PostgreSQL running in this process. */
async function bulkBoard(images: number): Promise<{ dataDir: string; db: Database; close(): Promise<void> }> {
  const board = await openBoard(join(HERE, '.cache'), images, false, log);
  log(`bulk board of ${images.toLocaleString('en')} images in ${board.dir} (${board.reused ? `built ${board.builtAt}` : `built now in ${fmt(board.buildSeconds)} s`})`);
  return { dataDir: board.dir, db: board.handle.db, close: () => board.handle.close() };
}

/** The caches whose misses each pass of the mix logs. */
const PASS_CACHES = ['engine_answers', 'engine_parsed_requests', 'engine_filter_sets', 'image_answers', 'image_json', 'search_anonymous_requests'];

/**
 * The mix, read-only and then with one write a second when `withWriter` is given, the CPU clocks
 * of the service and its PostgreSQL read over each measured window (Linux /proc), and the
 * service's RSS as `rss` last sampled it logged after each pass.
 */
async function measureMix(
  target: Target,
  mix: { paths: string[]; groupOf: number[] },
  o: Options,
  withWriter: Database | undefined,
  imageIds: number[],
  rss: { now(): number | undefined } | undefined,
): Promise<{ readOnly: MixRun; withWrites: MixRun | undefined }> {
  const pg = target.dataDir ? postmasterPid(join(target.dataDir, 'postgres')) : undefined;
  const svcPid = target.pid;
  const clocks = () => ({ at: performance.now(), svc: svcPid ? processCpuMs(svcPid) : undefined, pg: pg ? serverCpuMs(pg) : undefined });
  // what every drive of the mix shares: the warm-up's and each pass's
  const mixJob = { origin: target.origin, ...mix, groups: [...GROUPS], connections: o.connections, maxRequests: o.maxRequests };
  const pass = async (writes: number, seconds: number): Promise<MixPass> => {
    let start: ReturnType<typeof clocks> | undefined;
    let end: ReturnType<typeof clocks> | undefined;
    // the service's garbage collection over the measured window, by kind: a cost writes could
    // add to the reads' without showing in any one request
    let window: ReturnType<typeof loopStatsFrom> | undefined;
    const result = await drive(
      { ...mixJob, seconds, warmupSeconds: 0 },
      (phase) => {
        if (phase === 'measure') {
          start = clocks();
          window = loopStatsFrom(target.origin);
        } else end = clocks();
      },
    );
    const loop = window ? await (await window).end() : undefined;
    const gc = loop ? Object.entries(loop.gcMs).map(([kind, ms]) => `${kind} ${fmt(ms, 0)}`).join(', ') : '';
    // the caches that miss more after writes than before them: misses per 1,000 requests
    const perThousand = (n: number) => fmt((1000 * n) / Math.max(1, result.requests), 2);
    const misses = loop ? PASS_CACHES.map((name) => `${name} ${perThousand(loop.cacheMisses[name] ?? 0)}`).join(', ') : '';
    const spent = (key: 'svc' | 'pg') => (start?.[key] === undefined || end?.[key] === undefined ? undefined : end[key]! - start[key]!);
    log(`  mix with ${writes} write/s: ${fmt(result.rps)} req/s, RSS ${fmt(rss?.now() ?? Number.NaN, 0)} MiB${loop ? `, GC ms ${gc}; misses per 1k requests: ${misses}` : ''} (load ${loadAverage()})`);
    return { result, svcCpu: spent('svc'), pgCpu: spent('pg') };
  };
  log(`the mix (load ${loadAverage()})`);
  // read-only alone: one pass of the whole time
  const half = withWriter ? o.mixSeconds / 2 : o.mixSeconds;
  // the mix's heavy searches (match-all sorts, infix patterns, ranges over every image) are
  // slow until the engine has kept their answers: the first pass ran at a quarter of the
  // last one's rate after the usual warm-up, so the mix is warmed for as long as it is measured.
  // The warm-up is a drive of its own, as each pass is: a drive's connections start evenly spread
  // over the mix and bunch up as it runs, sharing the misses of searches that read the clock; a
  // first pass measured as the warm-up's continuation missed half as often as the passes after it
  // and ran 5.9 % faster than the next with no write at all.
  const warmSeconds = Math.max(o.warmup, o.mixSeconds);
  log(`  warming the mix for ${warmSeconds} s`);
  await drive({ ...mixJob, seconds: 1, warmupSeconds: warmSeconds });
  const firstReadOnly = await pass(0, half);
  let withWrites: MixRun | undefined;
  if (withWriter) {
    // `--writes 0` runs the same passes without a write: how far the read throughput drifts
    // between passes on its own, the control of the ratio
    const writer = o.writes > 0 ? await startWriter(withWriter, imageIds, o.writes) : { writes: 0, stop: async () => {} };
    const passes = [await pass(o.writes, half), await pass(o.writes, half)];
    await writer.stop();
    withWrites = { passes, writes: writer.writes };
  }
  const readOnly: MixRun = { passes: withWrites ? [firstReadOnly, await pass(0, half)] : [firstReadOnly], writes: 0 };
  return { readOnly, withWrites };
}

/** The bare Hono server (in this process) at full and half load: the ceiling the routes are set against. */
async function measureCeiling(o: Options, load: string): Promise<RouteFigures> {
  log(`the bare Hono ceiling (load ${load})`);
  const ceilingServer = await startHonoCeiling();
  // the ceiling's server runs in this process (the driver is a child of its own)
  const ownCpuMs = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  return await fullAndHalf('bare Hono', ceilingServer.origin, ['/'], o, ownCpuMs, false).finally(() => ceilingServer.close());
}

async function main(): Promise<void> {
  const o = options();
  log(`load: ${o.connections} connections, ${o.warmup} s warm-up + ${o.seconds} s measured per phase (load ${loadAverage()})`);
  let target: Target | undefined;
  let bulk: Awaited<ReturnType<typeof bulkBoard>> | undefined;
  let joined: DatabaseHandle | undefined;
  const cleanup = async () => {
    await target?.stop();
    await joined?.db.$client.end({ timeout: 5 });
    await bulk?.close();
  };
  process.once('SIGINT', () => void cleanup().finally(() => process.exit(130)));
  process.once('SIGTERM', () => void cleanup().finally(() => process.exit(143)));
  try {
    if (o.bulk !== undefined) bulk = await bulkBoard(o.bulk);
    const nodeFlags = [...(o.cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProf}`] : []), ...o.nodeFlags];
    target = o.url
      ? { origin: o.url, stop: async () => {} }
      : await startService({
          dataDir: bulk ? bulk.dataDir : join(CACHE, `board-${o.images}`),
          logFile: join(CACHE, `service-${bulk ? o.bulk : o.images}.log`),
          images: bulk ? o.bulk! : o.images,
          premade: bulk !== undefined,
          logLevel: o.logLevel,
          log,
          nodeFlags,
          awaitWarmStart: true,
        });
    // the service's resident memory from its warm start to the end of the mix
    const rss = target.pid === undefined ? undefined : sampleRss(target.pid);
    // the writes of the mixed run go to the service's database (joined when the service runs it)
    const db = bulk?.db ?? (target.dataDir ? (joined = await openDatabase({ dataDir: target.dataDir, max: 2 })).db : undefined);
    const board = await discover(target.origin);
    if (board.featured === undefined && db && board.imageIds[0] !== undefined) await featureImage(db, board.imageIds[0]);
    log(
      `board: ${board.imageIds.length} visible images discovered, ${board.tagNames.length} tag names, ${board.tagSlugs.length} tag slugs, ` +
        `${board.forums.length} forums, ${board.topics.length} topics, ${board.filterIds.length} system filters`,
    );
    const mix = buildMix(board, MIX_SIZE);
    const routePaths = buildRoutePaths(board, 2048);
    const problems = await probe(target.origin, mix.paths, mix.groupOf);
    if (problems.length > 0) log(`paths that do not answer 2xx (kept in the mix; counted as errors):\n  ${problems.slice(0, 20).join('\n  ')}`);

    const loads: Record<string, string> = { start: loadAverage() };
    log(`each route alone (load ${loads.start})`);
    const routes: RouteFigures[] = [];
    const serviceCpuMs = () => (target?.pid === undefined ? undefined : processCpuMs(target.pid));
    for (const route of o.only === 'mix' ? [] : o.only ? [o.only] : ROUTES) routes.push(await fullAndHalf(route, target.origin, routePaths[route], o, serviceCpuMs));

    loads.mix = loadAverage();
    const { readOnly, withWrites } = await measureMix(target, mix, o, o.only === undefined || o.only === 'mix' ? db : undefined, board.imageIds, rss);
    if (!db) log('  (no database at hand with --url: the run with writes is left out)');
    const memory: RssFigures | undefined = rss?.stop();
    await target.stop();
    target = undefined;

    loads.ceiling = loadAverage();
    const ceiling = await measureCeiling(o, loads.ceiling);
    loads.end = loadAverage();

    printLoadReport({ images: o.bulk ?? o.images, routes, ceiling, readOnly, withWrites, writesPerSecond: o.writes, loads, memory }, log);
  } finally {
    await cleanup();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
