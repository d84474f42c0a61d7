/**
 * A Tagwise cluster on this host, as the cluster suite and `npm run bench -- cluster` run it:
 * a three-node OpenSearch cluster (`localCluster`), a real S3-compatible server (S3Proxy), one
 * PostgreSQL database given by the caller, and API processes (`src/main.ts` as child processes,
 * each on its own port and DATA_DIR, all with the same DATABASE_URL, OPENSEARCH_URL list,
 * STORAGE_URL and an index prefix of this run). No demo board: a verified uploader with an API key
 * is made through `npm run admin`, and a small HTTP server hands out generated images for uploads
 * by URL over https (FETCH_ALLOW_HOSTS lets the processes fetch from it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { freePort } from '../../src/lib/free-port.js';
import { localCluster, nodePid, type LocalCluster } from './opensearch-cluster.js';
import { programArgs, ROOT } from './programs.js';
import { childEnv, runTool } from './run-tool.js';
import { startHttpsServer, type TestHttpsServer } from './https-server.js';
import { startS3Server, type S3TestServer } from './s3-server.js';

export interface ApiProcess {
  /** `api1`, `api2`, … in start order. */
  name: string;
  base: string;
  pid: number;
  alive(): boolean;
  /** The last lines it wrote (stdout and stderr), for failure messages. */
  tail(): string;
  /** Sends `signal` and waits for the process to exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface ClusterSetup {
  opensearchNodes: string[];
  s3: S3TestServer;
  databaseUrl: string;
  /** The OPENSEARCH_INDEX_PREFIX of this run. */
  indexPrefix: string;
  /** Every API process started, dead ones included. */
  api: ApiProcess[];
  /** API key of a verified uploader (their uploads are approved at once). */
  uploaderKey: string;
  /** URL of a generated PNG, different for every seed, that the API processes may fetch. */
  imageUrl(seed: number): string;
  /** Starts `count` more API processes together and waits until each answers /readyz with 200. */
  startApi(count: number): Promise<ApiProcess[]>;
  /** Kills the OpenSearch node at `url` with SIGKILL. */
  killOpenSearchNode(url: string): Promise<void>;
  /** The process leading the outbox (its /readyz says `indexer_leader: true`), if any answers so. */
  leader(): Promise<ApiProcess | undefined>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** A PostgreSQL database for the board (empty or migrated; the first process migrates it). */
  databaseUrl: string;
  /** OpenSearch nodes in the cluster (the one OPENSEARCH_CLUSTER_URL gives, else started here). */
  opensearchNodes?: number;
  /** More settings of every API process. */
  env?: Record<string, string>;
  log?: (msg: string) => void;
}

const TAIL_CHARS = 8_000;
/** The certificate of the test https servers (test/support/https-server.ts). */
const TEST_CA = fileURLToPath(new URL('../fixtures/tls/cert.pem', import.meta.url));

/**
 * Serves `/<seed>.png` over https (uploads by URL must be https): the demo generator's PNG of that
 * seed, made once and kept. The API processes trust its certificate through NODE_EXTRA_CA_CERTS.
 */
async function startImageServer(): Promise<TestHttpsServer> {
  const made = new Map<number, Promise<Buffer>>();
  return startHttpsServer((req, res) => {
    const seed = /^\/(\d+)\.png$/.exec(req.url ?? '')?.[1];
    if (!seed) return void res.writeHead(404).end();
    const n = Number(seed);
    if (!made.has(n)) made.set(n, generateDemoImage(n, 'png').then((img) => img.bytes));
    made.get(n)!.then(
      (bytes) => res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length }).end(bytes),
      () => res.writeHead(500).end(),
    );
  });
}

/** The API's `src/main.ts` as a child process with `env`; its output kept as a bounded tail. */
async function spawnApi(name: string, env: Record<string, string>, dataDir: string): Promise<ApiProcess> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, programArgs('src/main.ts'), {
    cwd: ROOT,
    env: childEnv({ ...env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (d: Buffer) => (tail = (tail + d.toString()).slice(-TAIL_CHARS));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const alive = () => child.exitCode === null && child.signalCode === null;
  return {
    name,
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    alive,
    tail: () => tail,
    async kill(signal) {
      if (alive()) child.kill(signal);
      await exited;
    },
  };
}

/** Resolves once `api` answers /readyz with 200 (ready, or degraded by a lag). */
async function untilReady(api: ApiProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!api.alive()) throw new Error(`${api.name} exited during start-up:\n${api.tail()}`);
    const status = await fetch(`${api.base}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
      (r) => (void r.body?.cancel(), r.status),
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${api.name} was not ready within ${timeoutMs / 1000} s:\n${api.tail()}`);
    await sleep(500);
  }
}

/** Runs `npm run admin -- …args` against the board's database; its standard output. */
async function admin(databaseUrl: string, dataDir: string, args: string[]): Promise<string> {
  const run = await runTool('src/cli/admin.ts', args, { DATABASE_URL: databaseUrl, DATA_DIR: dataDir });
  if (run.code !== 0) throw new Error(`admin ${args.join(' ')} failed (${run.code}):\n${run.stderr}${run.stdout}`);
  return run.stdout;
}

/** A verified user and an API key of theirs (`key issue` prints the key alone on its last line). */
async function makeUploader(databaseUrl: string, dataDir: string): Promise<string> {
  await admin(databaseUrl, dataDir, ['user', 'create', 'cluster_uploader']);
  await admin(databaseUrl, dataDir, ['user', 'verify', 'cluster_uploader']);
  const out = await admin(databaseUrl, dataDir, ['key', 'issue', 'cluster_uploader']);
  const key = out.trim().split('\n').at(-1)?.trim();
  if (!key) throw new Error(`no API key in the output of "admin key issue":\n${out}`);
  return key;
}

/**
 * Starts the OpenSearch cluster and the S3 server, makes the uploader and starts the first API
 * process (which migrates the database and creates the indices). More processes: `startApi`.
 */
export async function startClusterSetup(o: ClusterOptions): Promise<ClusterSetup> {
  const log = o.log ?? (() => {});
  const scratch = mkdtempSync(join(tmpdir(), 'tagwise-cluster-'));
  const indexPrefix = `cluster_${randomBytes(4).toString('hex')}_`;
  const stops: (() => Promise<unknown>)[] = [async () => rmSync(scratch, { recursive: true, force: true })];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => {});
  };
  try {
    log(`starting OpenSearch (${o.opensearchNodes ?? 3} nodes) and S3Proxy`);
    const [os, s3, images] = await Promise.all([localCluster(o.opensearchNodes ?? 3), startS3Server('tagwise-cluster'), startImageServer()]);
    stops.push(() => (os as LocalCluster).stop(), () => s3.stop(), () => images.close());
    stops.push(() => fetch(`${os.nodes[0]}/${indexPrefix}*`, { method: 'DELETE' }).catch(() => {}));
    log(`OpenSearch is up: ${os.nodes.join(',')}; S3 at ${s3.endpoint}`);

    const api: ApiProcess[] = [];
    stops.push(() => Promise.all(api.map((p) => p.kill('SIGTERM'))));
    const env = {
      DATABASE_URL: o.databaseUrl,
      OPENSEARCH_URL: os.nodes.join(','),
      OPENSEARCH_INDEX_PREFIX: indexPrefix,
      ...s3.env('board'),
      DEMO_DATA: 'false',
      FETCH_ALLOW_HOSTS: images.hostPort,
      NODE_EXTRA_CA_CERTS: TEST_CA,
      RATE_LIMITS: 'off',
      UPLOAD_DAILY_CAP: '100000',
      IMAGE_CACHE_WARM: 'off',
      LOG_LEVEL: 'warn',
      ...o.env,
    };
    const startApi = async (count: number) => {
      const started = await Promise.all(
        Array.from({ length: count }, (_, i) => spawnApi(`api${api.length + i + 1}`, env, mkdtempSync(join(scratch, 'api-')))),
      );
      api.push(...started);
      await Promise.all(started.map((p) => untilReady(p, 300_000)));
      log(`ready: ${started.map((p) => `${p.name} ${p.base}`).join(', ')}`);
      return started;
    };
    await startApi(1);
    const uploaderKey = await makeUploader(o.databaseUrl, scratch);
    return {
      opensearchNodes: os.nodes,
      s3,
      databaseUrl: o.databaseUrl,
      indexPrefix,
      api,
      uploaderKey,
      imageUrl: (seed) => `${images.origin}/${seed}.png`,
      startApi,
      async killOpenSearchNode(url) {
        const pid = await nodePid(url);
        process.kill(pid, 'SIGKILL');
        while (await fetch(url, { signal: AbortSignal.timeout(1_000) }).then(() => true, () => false)) await sleep(100);
      },
      async leader() {
        for (const p of api.filter((a) => a.alive())) {
          const body = await fetch(`${p.base}/readyz`).then((r) => r.json() as Promise<{ indexer_leader?: boolean }>, () => ({}) as { indexer_leader?: boolean });
          if (body.indexer_leader === true) return p;
        }
        return undefined;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
