/**
 * `npm run bench -- live [--subscribers N] [--queries Q] [--rate R] [--seconds S] [--poll-seconds P]`:
 * live searches under load, against polling for the same answers.
 *
 * 1. The service (`src/main.ts`, a 100-image demo board kept in `bench/.cache/live/`) as a child
 *    process on loopback, its open-file limit raised for the connections.
 * 2. Q distinct queries over Q bench tags (`live-q0` …): even ones a single tag, odd ones
 *    `(live-qI || live-qJ), safe`. N subscribers (default 10,000) over Q queries (default 200),
 *    each a plain TCP connection to `/api/v1/json/search/images/live?q=…`, held by a child process
 *    (bench/live/subscribers.ts) with its own file limit.
 * 3. For S seconds (default 30), R images a second (default 50) are created in the database, each
 *    with `safe` and three random bench tags, one transaction each, as a submission commits its
 *    row. The latency of a delivery is its arrival at the subscriber minus the time the creating
 *    transaction began (so it includes the insert itself): p50, p99, max. Deliveries are checked
 *    against the count the queries imply.
 * 4. Server figures: resident memory before and after the subscribers connected (per subscriber),
 *    CPU of the service and of its PostgreSQL over the creation window (in cores).
 * 5. Baseline in the same run: every subscriber polling `/search/images?q=…` every 5 s instead,
 *    that is N/5 requests a second. The same queries are driven closed-loop (16 connections) by
 *    bench/harness for P seconds (default 10): requests/s the service answers, latency, and CPU
 *    per request (service + PostgreSQL), hence the cores N/5 requests a second would take,
 *    against the cores the live searches used.
 *
 * Loopback only, bounded in time and count. The last line is one JSON object.
 */
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { getOrCreateTags } from '../src/contexts/tags/get-or-create.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { postmasterPid } from '../src/db/embedded-postgres.js';
import * as s from '../src/db/schema/index.js';
import { mulberry32 } from '../src/lib/random.js';
import { drive } from './harness/http.js';
import { startService } from './harness/service.js';
import { loadAverage, processCpuMs, serverCpuMs } from './harness/stats.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const CACHE = join(HERE, '.cache', 'live');
const API = '/api/v1/json';
/** Both processes hold one connection per subscriber, plus some. */
const FILE_LIMIT = 20_000;
const POLL_PERIOD_S = 5;
/** Creating transactions open at once (the pool holds a few connections more). */
const MAX_IN_FLIGHT = 12;

const { values } = parseArgs({
  options: {
    subscribers: { type: 'string', default: '10000' },
    queries: { type: 'string', default: '200' },
    rate: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '30' },
    'poll-seconds': { type: 'string', default: '10' },
  },
});
const o = {
  subscribers: Math.min(Number(values.subscribers), 15_000),
  queries: Math.max(2, Number(values.queries)),
  rate: Math.min(Number(values.rate), 500),
  seconds: Math.min(Number(values.seconds), 300),
  pollSeconds: Math.min(Number(values['poll-seconds']), 120),
};
const log = (msg: string) => console.log(msg);
const round = (x: number, digits: number) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : null);

const tagName = (i: number) => `live-q${i}`;
/** Query i, and whether an image with these bench tags (and `safe`) matches it. */
const queryText = (i: number, q: number) => (i % 2 === 0 ? tagName(i) : `(${tagName(i)} || ${tagName((i + 1) % q)}), safe`);
const matches = (i: number, q: number, tags: Set<number>) => tags.has(i) || (i % 2 === 1 && tags.has((i + 1) % q));

function rssBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1] ?? 0) * 1024;
}

/**
 * The baseline: the same answers by polling every 5 s. Measured closed loop (what one search costs
 * at the most the service answers), then priced at a poll per subscriber every period.
 */
async function measurePolling(origin: string, pid: number, pg: number) {
  await sleep(2000);
  const pollRate = o.subscribers / POLL_PERIOD_S;
  const searchPaths = Array.from({ length: o.queries }, (_, i) => `${API}/search/images?q=${encodeURIComponent(queryText(i, o.queries))}&per_page=50`);
  let p0 = { service: 0, pg: 0, at: 0 };
  let p1 = { service: 0, pg: 0, at: 0 };
  const clocks = () => ({ service: processCpuMs(pid)!, pg: serverCpuMs(pg)!, at: Date.now() });
  log(`baseline: the cost of a poll, at the most the service answers, for ${o.pollSeconds} s (load ${loadAverage()})`);
  const poll = await drive(
    // Closed loop: what one request costs at the most the service can answer; N/5 a second costs that many times as much.
    { origin, paths: searchPaths, connections: 16, seconds: o.pollSeconds, warmupSeconds: 2 },
    (phase) => {
      if (phase === 'measure') p0 = clocks();
      else p1 = clocks();
    },
  );
  const pollCores = (p1.service - p0.service + p1.pg - p0.pg) / (p1.at - p0.at);
  const cpuPerRequestMs = poll.requests === 0 ? Number.NaN : (pollCores * (p1.at - p0.at)) / poll.requests;
  const pollCoresNeeded = (cpuPerRequestMs * pollRate) / 1000;
  log(`baseline: ${poll.rps.toFixed(0)} requests/s answered (polling needs ${pollRate}), p50 ${poll.p50} ms, p99 ${poll.p99} ms, ${poll.errors} errors; CPU ${pollCores.toFixed(2)} cores, ${cpuPerRequestMs.toFixed(2)} ms a request: ${pollCoresNeeded.toFixed(2)} cores for ${pollRate}/s`);
  return { poll, pollRate, cpuPerRequestMs, pollCoresNeeded };
}

/** One image with `safe` and the chosen bench tags, in one transaction; its id. */
function createTaggedImage(db: Database, n: number, tagIds: number[]): Promise<number> {
  return db.transaction(async (tx) => {
    const [image] = await tx
      .insert(s.images)
      .values({ imageName: `live-${n}.png`, imageWidth: 10, imageHeight: 10, imageFormat: 'png', imageMimeType: 'image/png', processed: true, thumbnailsGenerated: true })
      .returning({ id: s.images.id });
    await tx.insert(s.imageTaggings).values(tagIds.map((tagId, position) => ({ imageId: image!.id, tagId, position })));
    return image!.id;
  });
}

async function main(): Promise<void> {
  const dataDir = join(CACHE, 'board-100');
  const service = await startService({ dataDir, logFile: join(CACHE, 'service.log'), images: 100, logLevel: 'warn', log, fileLimit: FILE_LIMIT });
  const subscribersProcess = fork(join(HERE, 'live', 'subscribers.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const database = await openDatabase({ dataDir, max: MAX_IN_FLIGHT + 2 });
  try {
    const pid = service.pid!;
    const pg = postmasterPid(join(dataDir, 'postgres'))!;
    const port = Number(new URL(service.origin).port);
    const db = database.db;
    const tagRows = await db.transaction((tx) => getOrCreateTags(tx, ['safe', ...Array.from({ length: o.queries }, (_, i) => tagName(i))]));
    const byName = new Map(tagRows.map((t) => [t.name, t.id]));
    const paths = Array.from({ length: o.subscribers }, (_, k) => `${API}/search/images/live?q=${encodeURIComponent(queryText(k % o.queries, o.queries))}`);
    const perQuery = Array.from({ length: o.queries }, (_, i) => Math.floor(o.subscribers / o.queries) + (i < o.subscribers % o.queries ? 1 : 0));

    await sleep(2000);
    const rssBefore = rssBytes(pid);
    log(`connecting ${o.subscribers} subscribers over ${o.queries} queries (load ${loadAverage()})`);
    const connectedAt = Date.now();
    // Each wait takes the first message carrying its key; the child answers one message at a time.
    // biome-ignore lint/suspicious/noExplicitAny: the child's messages are plain JSON objects of several shapes
    type Message = Record<string, any>;
    const reply = (key: string) =>
      new Promise<Message>((resolve) => {
        const on = (m: Message) => {
          if (!(key in m)) return;
          subscribersProcess.off('message', on);
          resolve(m);
        };
        subscribersProcess.on('message', on);
      });
    const connected = reply('connected');
    subscribersProcess.send({ start: { port, paths, burst: 500 } });
    const { connected: count, failed } = await connected;
    log(`${count} connected, ${failed} failed, in ${((Date.now() - connectedAt) / 1000).toFixed(1)} s`);
    await sleep(3000);
    const rssAfter = rssBytes(pid);

    // Creation at R per second, one transaction per image.
    const random = mulberry32(21);
    let expected = 0;
    const loadAtStart = loadAverage();
    const cpu0 = { service: processCpuMs(pid)!, pg: serverCpuMs(pg)!, at: Date.now() };
    const total = o.rate * o.seconds;
    const startAt = Date.now();
    const inFlight = new Set<Promise<void>>();
    const commitMs: number[] = [];
    const client0 = processCpuMs(subscribersProcess.pid!)!;
    for (let n = 0; n < total; n++) {
      const due = startAt + (n * 1000) / o.rate;
      if (due > Date.now()) await sleep(due - Date.now());
      // Open loop: an image is created when it is due, whether or not the previous one committed.
      if (inFlight.size >= MAX_IN_FLIGHT) await Promise.race(inFlight);
      const chosen = new Set<number>();
      while (chosen.size < 3) chosen.add(Math.floor(random() * o.queries));
      const began = Date.now();
      const creating = createTaggedImage(db, n, [byName.get('safe')!, ...[...chosen].map((i) => byName.get(tagName(i))!)]);
      const done: Promise<void> = creating.then((id) => {
        // The commit is acknowledged: deliveries are timed from here.
        const committed = Date.now();
        commitMs.push(committed - began);
        subscribersProcess.send({ created: [[id, committed]] });
        inFlight.delete(done);
      });
      inFlight.add(done);
      for (let i = 0; i < o.queries; i++) if (matches(i, o.queries, chosen)) expected += perQuery[i]!;
    }
    await Promise.all(inFlight);
    const createdSeconds = (Date.now() - startAt) / 1000;
    const cpu1 = { service: processCpuMs(pid)!, pg: serverCpuMs(pg)!, at: Date.now() };
    const client1 = processCpuMs(subscribersProcess.pid!)!;
    // The deliveries still on their way: wait until every one arrived, or nothing came for 30 s.
    let last = -1;
    let still = 0;
    for (let waited = 0; waited < 180 && still < 30; waited++) {
      const counted = reply('counted');
      subscribersProcess.send({ count: true });
      const { counted: n } = await counted;
      if (n >= expected) break;
      still = n === last ? still + 1 : 0;
      last = n;
      await sleep(1000);
    }
    const ended = reply('deliveries');
    subscribersProcess.send({ end: true });
    const live = await ended;
    const windowMs = cpu1.at - cpu0.at;
    const liveCores = (cpu1.service - cpu0.service + cpu1.pg - cpu0.pg) / windowMs;
    log(`created ${total} images in ${createdSeconds.toFixed(1)} s; ${live.deliveries} of ${expected} deliveries, p50 ${live.p50} ms, p99 ${live.p99} ms, max ${live.max} ms`);
    commitMs.sort((a, b) => a - b);
    const commitP = (q: number) => commitMs[Math.min(commitMs.length - 1, Math.floor(q * commitMs.length))]!;
    log(`creating transactions: p50 ${commitP(0.5)} ms, p99 ${commitP(0.99)} ms from begin to acknowledged commit; subscriber process CPU ${((client1 - client0) / windowMs).toFixed(2)} cores`);
    log(`server: ${((rssAfter - rssBefore) / o.subscribers / 1024).toFixed(1)} KiB per subscriber; CPU ${liveCores.toFixed(2)} cores (service + PostgreSQL)`);

    const { poll, pollRate, cpuPerRequestMs, pollCoresNeeded } = await measurePolling(service.origin, pid, pg);
    const figures = {
      subscribers: count,
      queries: o.queries,
      images_per_s: round(total / createdSeconds, 1),
      deliveries: live.deliveries,
      expected_deliveries: expected,
      latency_p50_ms: live.p50,
      latency_p99_ms: live.p99,
      latency_max_ms: live.max,
      commit_p99_ms: commitP(0.99),
      server_kib_per_subscriber: round((rssAfter - rssBefore) / count / 1024, 2),
      live_cpu_cores: round(liveCores, 3),
      poll_rps_needed: pollRate,
      poll_rps_capacity: round(poll.rps, 0),
      poll_p99_ms: round(poll.p99, 1),
      poll_cpu_ms_per_request: round(cpuPerRequestMs, 3),
      poll_cpu_cores_needed: round(pollCoresNeeded, 2),
      ratio_poll_to_live_cpu: round(pollCoresNeeded / liveCores, 1),
      machine_load_1m: Number(loadAtStart.split(' ')[0]),
    };
    console.log(JSON.stringify(figures));
  } finally {
    subscribersProcess.kill();
    await database.close();
    await service.stop();
  }
}

await main();
