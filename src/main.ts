/**
 * `npm start`: the whole service in one process. With no configuration it starts an embedded
 * PostgreSQL and the embedded search engine under DATA_DIR, fills an empty board with demo data,
 * keeps the indices in sync in-process, and serves the API. Beside OpenSearch the processes of one
 * board share the index: one at a time follows the outbox (indexer/leader.ts). Requests use a pool of their own that
 * fails fast (503) while the database is unreachable; an embedded PostgreSQL that dies is
 * restarted (`src/db/supervise.ts`).
 *
 * Shutdown (SIGTERM or SIGINT): `/readyz` answers 503 at once; refusals held in the tarpit are
 * answered at once (`shutdownSignal`); image decodes in flight are killed (their requests answered
 * 503, their jobs run again at the next start); live search streams and sockets are closed (a
 * stream resumes with Last-Event-ID, a socket reconnects); the server stops accepting, lets
 * the requests in flight finish, answering with `Connection: close`, and closes keep-alive
 * connections as they go idle (`src/http/server.ts`); background
 * workers finish their current jobs; the indexer finishes its batch; the embedded engine writes
 * its snapshot; the pools close and the embedded PostgreSQL stops. All within
 * `SHUTDOWN_TIMEOUT_SECONDS`, else the process exits 1. A signal during start-up stops it at the
 * next step and shuts down the same way.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { waitForCatchUp } from '../indexer/catch-up.js';
import { Indexer } from '../indexer/index.js';
import { OutboxLeadership } from '../indexer/leader.js';
import { claimEngineOwnership, EngineOwnedElsewhere, type EngineOwnership } from '../indexer/engine-owner.js';
import { loadConfigOrExit, type Config } from './config.js';
import { createDatabase, openDatabase, type Database, type DatabaseHandle } from './db/client.js';
import { superviseEmbeddedPostgres, type Supervisor } from './db/supervise.js';
import { startDumpSchedule } from './dumps/schedule.js';
import { createApp } from './http/app/app.js';
import { composeApp } from './http/app/compose.js';
import { startImageCacheWarmer } from './http/render/image-cache-warmer.js';
import { startHttpServer, type HttpServer } from './http/server/server.js';
import type { Live } from './http/live/types.js';
import { createSocketServer } from './http/routes/socket.js';
import type { AppDeps, ReadinessState } from './http/env/context.js';
import { createJobHandlers } from './contexts/images/process-job.js';
import { JobWorker } from './jobs/index.js';
import { withImportedOrigin } from './contexts/board/origin.js';
import { createLogger } from './log.js';
import { jobDecodes, requestDecodes } from './media/sandbox/decodes.js';
import { openStorage } from './media/storage-open.js';
import { createSearchEngine } from './search/create-engine.js';
import type { SearchEngine } from './search/engine.js';
import { createDemoFilesJobHandlers } from './seed/demo-files-job.js';
import { seedDemoBoardOnce } from './seed/demo-once.js';

/** A request waiting this long for the database has it probed, and the probe has this long. */
const REQUEST_STALL_GUARD = { stallMs: 700, probeTimeoutMs: 900 };

const config = loadConfigOrExit();
const log = createLogger(config);

/** What is running, in start order; shutdown stops it in reverse. */
const running: {
  database?: DatabaseHandle;
  /** Restarts the embedded PostgreSQL if it dies. */
  supervisor?: Supervisor;
  /** The API's own pool, which fails fast when the database is unreachable. */
  requestDb?: Database;
  /** The embedded engine's lock: one process per database keeps it (`indexer/engine-owner.ts`). */
  ownership?: EngineOwnership;
  engine?: SearchEngine;
  indexer?: Indexer;
  /** Beside a shared engine: this process's candidacy to follow the outbox. */
  leadership?: OutboxLeadership;
  server?: HttpServer;
  /** The live machinery: the firehose socket's and live searches' connections close with it. */
  live?: Live;
  /** Background workers (e.g. a job worker): `stop()` lets the jobs in hand finish. */
  workers: { name: string; stop(): Promise<void> }[];
} = { workers: [] };

const readiness: ReadinessState = { stopping: false, indexer: 'starting' };
/** Aborted at shutdown: the app answers at once what it holds on purpose (refusals in its tarpit). */
const stopping = new AbortController();

class StartInterrupted extends Error {}

/** Between start-up steps: give up starting once a shutdown was asked for. */
function checkpoint(): void {
  if (readiness.stopping) throw new StartInterrupted('shutdown during start-up');
}

let startup: Promise<void> = Promise.resolve();

async function main(): Promise<void> {
  if (config.developmentHttpUrls) {
    log.warn(
      { baseUrl: config.baseUrl, cdnUrl: config.cdnUrl },
      'serving http URLs on localhost for development; set https BASE_URL and CDN_URL in production',
    );
  }
  const restarts = { count: () => {} };
  const database = await openSupervisedDatabase(restarts);
  const { db } = database;
  checkpoint();
  // Requests use a pool of their own with short connect and statement timeouts: while the
  // database is unreachable they are answered 503 at once instead of hanging; a database that
  // stops answering (frozen) is found out within two seconds (`src/db/stall-guard.ts`).
  const requestDb = (running.requestDb = createDatabase(database.url, { ...config.requestPool, stallGuard: REQUEST_STALL_GUARD }));
  const { engine, indexer } = await openSearch(database.url, db);
  checkpoint();

  // Serve from here on: /healthz answers and /readyz says "starting" while the index is built.
  // Media (images, assets, dumps) in STORAGE_URL: every process of the board shares it.
  const storage = openStorage(config.storage);
  log.info({ storage: storage.location }, 'media storage');
  // Images a Philomena import brought in without files are served (and dumped) from its origin.
  const serving = await withImportedOrigin(db, config);
  // The app's shared objects (metrics, caches, the limiter, the autocomplete index, the live
  // side…) are built once, here, and the service's own steps below use those same objects.
  const deps = composeApp({
    config: serving,
    db: requestDb,
    backgroundDb: db,
    engine,
    storage,
    logger: log,
    readiness: () => readiness,
    shutdownSignal: stopping.signal,
    ...(engine.kind === 'embedded' ? { indexerLag: () => indexer.lag() } : {}),
  });
  running.live = deps.live;
  restarts.count = () => deps.metrics.databaseRestarts.inc();
  const services: Services = { serving, db, engine, indexer, deps, storage };
  await startServer(services);
  await prepareBoard(services, database.url);
  await startWorkers(services);
}

/** What the server and the background work share once start-up has opened them. */
interface Services {
  /** The configuration, with what the board itself sets (an import's origin). */
  serving: Config;
  db: Database;
  engine: SearchEngine;
  indexer: Indexer;
  /** The app's shared objects, composed once (`src/http/app/compose.ts`). */
  deps: AppDeps;
  storage: ReturnType<typeof openStorage>;
}

/** The database, supervised from here on when it is embedded; `restarts.count` counts each restart. */
async function openSupervisedDatabase(restarts: { count: () => void }): Promise<DatabaseHandle> {
  const database = (running.database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    log: (msg) => log.info(msg),
    role: 'service',
  }));
  log.info({ embedded: database.embedded }, 'database ready');
  // Supervised from here on, start-up included: an embedded PostgreSQL that stops (killed, or
  // stopped by the CLI that had started it before it was ours) is started again.
  const { server: embeddedServer } = database;
  if (embeddedServer) {
    running.supervisor = superviseEmbeddedPostgres(embeddedServer, {
      onRestart: () => {
        restarts.count();
        log.warn('embedded PostgreSQL had stopped; restarted it');
      },
      onError: (err) => log.error({ err }, 'embedded PostgreSQL is down and could not be restarted yet'),
    });
  }
  return database;
}

/** The search engine (the embedded one only once this process owns it) and its indexer, indexes made. */
async function openSearch(url: string, db: Database): Promise<{ engine: SearchEngine; indexer: Indexer }> {
  if (config.opensearchNodes.length === 0) {
    running.ownership = await claimEngineOwnership(url, {
      onLost: (err) => {
        log.fatal({ err }, 'lost the embedded search engine to another process');
        failed = true;
        void shutdown('engine ownership lost');
      },
    });
  }
  const engine = (running.engine = createSearchEngine(config));
  const indexer = (running.indexer = new Indexer({ db, engine, log: (msg: string) => log.info(msg) }));
  await indexer.ensureIndexes();
  return { engine, indexer };
}

/** The app, its live side and the HTTP server, listening once this resolves. */
async function startServer({ deps }: Services): Promise<void> {
  const app = createApp(deps);
  const sockets = createSocketServer();
  const http = (running.server = startHttpServer(app.fetch, { port: config.port, hostname: config.host, limits: config.http, websocket: sockets }));
  const { server } = http;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject); // e.g. the port is taken: start-up fails
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log.info({ url: `http://${config.host}:${port}`, baseUrl: config.baseUrl }, 'listening');
  server.on('error', (err) => {
    log.fatal({ err }, 'HTTP server failed');
    failed = true;
    void shutdown('server error');
  });
}

/**
 * The board made ready to search: the demo board made if asked for, then the embedded index
 * brought up to date and followed, or the shared one followed by whichever process leads.
 */
async function prepareBoard({ db, engine, indexer, storage, deps }: Services, url: string): Promise<void> {
  // The demo board is made while the server already answers /healthz (readiness says starting);
  // its rows land in one transaction, so the counts appear all at once. Of processes started
  // together on an empty database one seeds and the others wait for it. Its image files are made
  // afterwards by the job worker (demo-files-job.ts): the API is ready in seconds, not minutes.
  // The embedded engine is built from the tables right after, so the rows skip the outbox there.
  if (config.demoData) {
    const started = Date.now();
    const skipOutbox = engine.kind === 'embedded';
    const demo = { seed: config.demoSeed, images: config.demoImages, storage, withFiles: true, imageFilesLater: true, skipOutbox };
    if (await seedDemoBoardOnce(db, demo, (msg) => log.info({ images: config.demoImages, seed: config.demoSeed }, msg))) {
      log.info({ ms: Date.now() - started, imageFiles: 'made in the background, newest first' }, 'demo board created');
    }
    checkpoint();
  }

  // In embedded mode the index lives in this process: build what the snapshot lacks, then follow.
  if (engine.kind === 'embedded') {
    await indexer.repairIndexes();
    checkpoint();
    indexer.start();
    readiness.indexer = 'started';
    log.info('indexer following the outbox');
  }

  // Beside a shared engine (OpenSearch) every API process is a candidate; one follows at a time.
  if (engine.kind !== 'embedded') followSharedIndex(url, db, indexer, engine);

  // The autocomplete index is loaded now rather than on the first keystroke (a second or two on
  // 200,000 tags); a failure only means the first request loads it.
  void deps.autocomplete
    .index()
    .catch((err: unknown) => log.warn({ err }, 'autocomplete index not loaded at start'));
}

/** Background work: image processing, the image cache's warm start and the nightly dumps. */
async function startWorkers({ serving, db, storage, deps }: Services): Promise<void> {
  // Image processing: durable jobs in PostgreSQL; queued jobs left by a previous run resume here.
  const jobWorker = new JobWorker({
    db,
    handlers: {
      ...createJobHandlers({ db, fileStore: storage.area('images'), config, log: (msg, detail) => log.info(detail ?? {}, msg) }),
      ...createDemoFilesJobHandlers({ db, images: storage.area('images'), log: (msg, detail) => log.info(detail ?? {}, msg) }),
    },
    concurrency: 1,
    log: (msg, detail) => log.warn(detail ?? {}, msg),
  });
  await jobWorker.start();
  running.workers.push({ name: 'jobs', stop: () => jobWorker.stop() });
  // The decode sandboxes' children start now, not with the first upload or reverse search.
  requestDecodes.setDeadline(config.decodeDeadlines.requestMs);
  jobDecodes.setDeadline(config.decodeDeadlines.jobMs);
  requestDecodes.warm();
  jobDecodes.warm();

  // The image cache fills in the background once the service is ready, newest images first,
  // through the main pool so that requests keep theirs.
  if (serving.imageCacheWarm) {
    const warmer = startImageCacheWarmer({ ...deps, db }, log);
    running.workers.push({ name: 'image cache warm start', stop: () => warmer.stop() });
  }

  // Nightly dump of the public data at DUMP_AT (UTC); its advisory lock lets one process dump.
  const dumps = startDumpSchedule({ db, config: serving, log });
  if (dumps) running.workers.push({ name: 'dumps', stop: () => dumps.stop() });
}

/**
 * Contend for the lead of the outbox (indexer/leader.ts), and be ready once the shared index has
 * caught up with the outbox as it stood now (indexer/catch-up.ts); its lag later only degrades
 * readiness (src/http/routes/health.ts).
 */
function followSharedIndex(url: string, db: Database, indexer: Indexer, engine: SearchEngine): void {
  const leadership = (running.leadership = new OutboxLeadership({
    session: createDatabase(url, { max: 1 }),
    indexer,
    log: (msg) => log.info(msg),
    // a leader stuck for as long as readiness tolerates a lag lets another process try
    stallSeconds: config.readyMaxOutboxLagSeconds,
  }));
  leadership.start();
  readiness.leading = () => leadership.leading;
  void waitForCatchUp(db, engine, { signal: stopping.signal }).then(
    () => {
      readiness.indexer = 'shared';
      log.info('the index has caught up with the outbox as it stood at start');
    },
    () => {},
  );
}

function flushLog(): Promise<void> {
  return new Promise<void>((resolve) => log.flush(() => resolve()));
}

let shuttingDown = false;
/** Something failed for good: exit 1 after shutting down. */
let failed = false;

async function shutdown(signal: string): Promise<void> {
  if (shuttingDown) {
    log.warn({ signal }, 'already shutting down');
    return;
  }
  shuttingDown = true;
  readiness.stopping = true;
  stopping.abort();
  // Decodes in flight are killed, not waited for: a render bomb could outlast any deadline. Their
  // requests are answered 503 and their job runs again at the next start.
  requestDecodes.close();
  jobDecodes.close();
  log.info({ signal, timeoutSeconds: config.shutdownTimeoutSeconds }, 'shutting down');
  const deadline = setTimeout(() => {
    log.error('shutdown deadline passed; stopping the database and exiting');
    void Promise.race([running.database?.close(), sleep(5_000)])
      .catch(() => {})
      .then(flushLog)
      .finally(() => process.exit(1));
  }, config.shutdownTimeoutSeconds * 1000);
  deadline.unref();

  // A start-up in progress stops at its next step.
  await startup.catch(() => {});

  let clean = true;
  const step = async (name: string, fn: () => Promise<unknown>) => {
    try {
      await fn();
    } catch (err) {
      clean = false;
      log.error({ err, step: name }, 'shutdown step failed');
    }
  };
  const { server, workers, indexer, engine, database, supervisor, requestDb } = running;
  // Live streams and sockets never finish on their own, so the HTTP server would wait for them
  // for ever: the live side closes them first (streams resume with Last-Event-ID, sockets reconnect).
  if (running.live) await step('live', () => running.live!.stop());
  if (server) await step('http server', () => server.close());
  await step('workers', () => Promise.all(workers.map((w) => w.stop())));
  if (running.leadership) await step('outbox leadership', () => running.leadership!.stop());
  if (indexer) await step('indexer', () => indexer.stop());
  if (engine) {
    await step('engine flush', () => engine.flush());
    await step('engine close', () => engine.close());
  }
  if (running.ownership) await step('engine ownership', () => running.ownership!.release());
  if (supervisor) await step('database supervisor', () => supervisor.stop());
  if (requestDb) await step('request pool', () => requestDb.$client.end({ timeout: 5 }));
  if (database) await step('database', () => database.close());
  log.info({ clean }, 'stopped');
  await flushLog();
  process.exit(clean && !failed ? 0 : 1);
}

process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));

startup = main().catch(async (err: unknown) => {
  if (err instanceof StartInterrupted || shuttingDown) return; // shutdown() takes it from here
  if (err instanceof EngineOwnedElsewhere) log.fatal(err.message);
  else log.fatal({ err }, 'failed to start');
  await running.database?.close().catch(() => {});
  await flushLog();
  process.exit(1);
});
