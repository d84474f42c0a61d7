/**
 * `npm run bench -- cluster [--seconds S] [--single-seconds S] [--readers R]`: a Tagwise cluster on
 * this host (test/support/cluster.ts: three OpenSearch nodes from `npm run opensearch -- --nodes 3`,
 * S3Proxy, PostgreSQL — DATABASE_URL's server if set, else an embedded one — and API processes
 * from `src/main.ts`) under a mixed load: R read loops (image JSON, searches, thumbnails) and one
 * upload by URL a second, from a client that retries a failed request (no connection, or 5xx) once
 * on another API process.
 *
 * 1. One API process for `--single-seconds` (default 20): `reqPerSec1`.
 * 2. Two more processes on the same cluster, then `--seconds` (default 60) of load over all three:
 *    `reqPerSec3` over its first third; then one OpenSearch node is killed with SIGKILL, and at the
 *    middle the API process leading the outbox (its /readyz says `indexer_leader`) is too. Right
 *    after that kill an upload is made through a survivor; `indexerFailoverSeconds` is the time
 *    from the kill until the other survivor's search finds it.
 * 3. Every acknowledged upload of the run must then be served by each survivor (JSON, full file,
 *    thumbnail) and found by its search; those that are not after 4 minutes are `writesLost`.
 *
 * `failed` counts requests that failed after their retry, `p50Ms`/`p99Ms` are over every request of
 * the run (retries included in their request's time). Targets: failed 0, writesLost 0,
 * indexerFailoverSeconds ≤ 10. The last line is one JSON object of the figures.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../src/db/embedded-postgres.js';
import { startClusterSetup, type ApiProcess, type ClusterSetup } from '../test/support/cluster.js';
import { checkVisibility, percentile, RetryingClient, searchIds, startLoad, type LoadStats } from '../test/support/cluster-load.js';
import { loadAverage } from './harness/stats.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    'single-seconds': { type: 'string', default: '20' },
    readers: { type: 'string', default: '4' },
  },
});
const seconds = Number(values.seconds);
const singleSeconds = Number(values['single-seconds']);
const readers = Number(values.readers);
if (!(seconds >= 60) || !(singleSeconds > 0) || !(readers >= 1)) {
  console.error('--seconds must be at least 60, --single-seconds and --readers positive');
  process.exit(2);
}

const log = (msg: string) => console.log(`# ${msg}`);
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

/** A database of its own on DATABASE_URL's server, or on an embedded server in a scratch directory. */
async function benchDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  let embedded: EmbeddedPostgres | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-bench-cluster-pg-'));
  const server = process.env.DATABASE_URL || (embedded = await startEmbeddedPostgres(dir)).url;
  const name = `tagwise_bench_cluster_${randomBytes(4).toString('hex')}`;
  const admin = postgres(server, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
      await embedded?.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Seconds from `killedAt` until an upload made through `writer` right after it is found by `reader`'s search. */
async function failoverSeconds(c: ClusterSetup, writer: ApiProcess, reader: ApiProcess, killedAt: number, runTag: string, acked: number[]): Promise<number> {
  const tag = `failover${randomBytes(3).toString('hex')}`;
  const res = await fetch(`${writer.base}/api/v1/json/images?key=${encodeURIComponent(c.uploaderKey)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: c.imageUrl(900_000), image: { tag_input: `safe, ${runTag}, ${tag}` } }),
  });
  const body = await res.text();
  if (!res.ok) throw new Error(`the upload after the leader's kill answered ${res.status}: ${body}`);
  acked.push((JSON.parse(body) as { image: { id: number } }).image.id);
  const deadline = Date.now() + 120_000;
  while ((await searchIds(reader.base, tag))?.length !== 1) {
    if (Date.now() > deadline) throw new Error('the upload after the leader was killed was not searchable within 2 minutes');
    await sleep(100);
  }
  return (Date.now() - killedAt) / 1000;
}

const db = await benchDatabase();
let c: ClusterSetup | undefined;
try {
  c = await startClusterSetup({ databaseUrl: db.url, log });
  const cluster = c;
  const runTag = `benchrun${randomBytes(3).toString('hex')}`;
  const loadOf = (bases: string[], firstSeed: number) =>
    startLoad({ client: new RetryingClient(() => bases), uploaderKey: cluster.uploaderKey, runTag, imageUrl: cluster.imageUrl, readers, writesPerSecond: 1, firstSeed });

  log(`phase 1: one API process, ${singleSeconds} s`);
  const single = loadOf([cluster.api[0]!.base], 0);
  const singleStarted = performance.now();
  await sleep(singleSeconds * 1000);
  const singleStats = await single.stop();
  const reqPerSec1 = singleStats.requests / ((performance.now() - singleStarted) / 1000);

  await cluster.startApi(2);
  log(`phase 2: three API processes, ${seconds} s; an OpenSearch node killed at ${round(seconds / 3, 0)} s, the leading API process at ${round(seconds / 2, 0)} s`);
  const triple = loadOf(cluster.api.map((p) => p.base), 100_000);
  const tripleStarted = performance.now();
  await sleep((seconds / 3) * 1000);
  const reqPerSec3 = triple.stats.requests / ((performance.now() - tripleStarted) / 1000);
  log(`killing OpenSearch node ${cluster.opensearchNodes[1]}`);
  await cluster.killOpenSearchNode(cluster.opensearchNodes[1]!);
  await sleep(Math.max(0, tripleStarted + (seconds / 2) * 1000 - performance.now()));
  const leader = await cluster.leader();
  if (!leader) throw new Error('no API process says it leads the outbox');
  const [writer, reader] = cluster.api.filter((p) => p !== leader);
  log(`killing ${leader.name}, the leader`);
  const killedAt = Date.now();
  await leader.kill('SIGKILL');
  const extraAcked: number[] = [];
  const indexerFailoverSeconds = await failoverSeconds(cluster, writer!, reader!, killedAt, runTag, extraAcked);
  await sleep(Math.max(0, tripleStarted + seconds * 1000 - performance.now()));
  const tripleStats = await triple.stop();

  const all: LoadStats[] = [singleStats, tripleStats];
  const acked = [...all.flatMap((s) => s.acked), ...extraAcked];
  log(`checking ${acked.length} acknowledged uploads on the surviving processes`);
  const seen = await checkVisibility(cluster.api.filter((p) => p.alive()).map((p) => p.base), acked, runTag, 240_000);
  for (const problem of seen.problems.slice(0, 20)) log(`not visible: ${problem}`);
  const failures = all.flatMap((s) => s.failures);
  for (const failure of failures.slice(0, 20)) log(`failed: ${failure.path} ${failure.status} ${failure.body}`);
  const latencies = all.flatMap((s) => s.latenciesMs);
  console.log(
    JSON.stringify({
      apiProcesses: 3,
      opensearchNodes: cluster.opensearchNodes.length,
      seconds: singleSeconds + seconds,
      readers,
      requests: all.reduce((n, s) => n + s.requests, 0),
      retried: all.reduce((n, s) => n + s.retried, 0),
      failed: failures.length,
      writesAcked: new Set(acked).size,
      writesUnacked: all.reduce((n, s) => n + s.unacked, 0),
      writesLost: seen.lost.length,
      reqPerSec: { '1': round(reqPerSec1), '3': round(reqPerSec3) },
      p50Ms: round(percentile(latencies, 50)),
      p99Ms: round(percentile(latencies, 99)),
      indexerFailoverSeconds: round(indexerFailoverSeconds, 2),
      loadAverage: loadAverage(),
    }),
  );
} finally {
  await c?.stop();
  await db.drop();
}
