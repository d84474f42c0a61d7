/**
 * Harness of the submission tests: a real database with the rating tags and a user who uploads,
 * the app served over real HTTP, a local https server (trusted by the test setup) that serves
 * whatever files a test registers, the image store under a temporary DATA_DIR, and the job worker
 * with the image handlers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type Config } from '../../src/config.js';
import { createDatabase, type Database, type PoolOptions } from '../../src/db/client.js';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import type { AppDeps, AppParts, UploadOptions } from '../../src/http/env/context.js';
import { createJobHandlers } from '../../src/contexts/images/process-job.js';
import { JobWorker } from '../../src/jobs/index.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { Indexer } from '../../indexer/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { readAnswer, type Answer } from '../support/answer.js';
import { startHttpsServer, type TestHttpsServer } from '../support/https-server.js';
import { insertKey, insertTag, insertUser, serveApp, stubEngine } from '../http/harness.js';
import type { MediaStorage } from '../../src/media/storage.js';

export const BASE_URL = 'http://booru.test';
export const CDN_URL = 'https://cdn.booru.test';

export interface Served {
  status?: number;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Send only this many bytes of `body` (under its whole Content-Length), then hold the connection: a download that stalls. */
  stallAfter?: number;
}

export interface UploadHarness {
  db: Database;
  /** The app's composed dependencies (its limiter, caches, …). */
  deps: AppDeps;
  /** A verified user named Uploader, and an API key of theirs. */
  uploader: Awaited<ReturnType<typeof userWithKey>>;
  /** Connection URL of the test database (for child processes). */
  dbUrl: string;
  config: Config;
  dataDir: string;
  /** The image area of the storage. */
  store: MediaStorage;
  /** Base URL of the app. */
  url: string;
  /** The https file server. */
  files: TestHttpsServer;
  /** Register what the file server answers at `path` (e.g. `/a.png`); returns its https URL. */
  serve(path: string, served: Served): string;
  /** Paths the file server was asked for, in order. */
  requested: string[];
  /** An app path or a CDN URL (`https://cdn.booru.test/img/…`), fetched from the app. */
  get(pathOrCdnUrl: string): Promise<Response>;
  /** A JSON API request (path relative to /api/v1/json). */
  api(path: string, init?: RequestInit): Promise<Answer>;
  /** POST /images with a JSON body. */
  submit(key: string | null, body: unknown, init?: { headers?: Record<string, string> }): Promise<Answer>;
  /**
   * Run every due job, then wait until the app has heard the announcements of what they wrote:
   * the app's caches drop a changed image when PostgreSQL's notification arrives, a moment after
   * the worker's commit, so a read straight after could otherwise still get the image as it was.
   */
  drain(): Promise<number>;
  /** Bring the search engine up to date with the database (with `search: true`). */
  sync(): Promise<void>;
  worker(): JobWorker;
  logged: unknown[];
  close(): Promise<void>;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  upload?: UploadOptions;
  /** Serve the app from a pool of its own with these settings, as the service's request pool is (default: the test database's pool). */
  requestPool?: PoolOptions;
  /** Give the app a real embedded engine, kept up to date by `sync()` (default: none; any search fails the test). */
  search?: boolean;
  /** The media storage (default: a directory under `dataDir`). */
  storage?: MediaStorage;
}

export async function startUploadHarness(options: HarnessOptions = {}): Promise<UploadHarness> {
  const testDb: TestDatabase = await createTestDatabase();
  await seedBoard(testDb.db);
  const uploader = await userWithKey(testDb.db, { name: 'Uploader' });
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-upload-'));
  const routes = new Map<string, Served>();
  const requested: string[] = [];
  const files = await startHttpsServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0]!;
    requested.push(path);
    const served = routes.get(path);
    if (!served) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    if (served.stallAfter !== undefined) {
      const body = Buffer.from(served.body ?? '');
      res.writeHead(served.status ?? 200, { ...served.headers, 'content-length': String(body.length) });
      res.write(body.subarray(0, served.stallAfter));
      return;
    }
    res.writeHead(served.status ?? 200, served.headers ?? {});
    res.end(served.body ?? '');
  });
  const config = loadConfig({
    BASE_URL,
    CDN_URL,
    DATA_DIR: dataDir,
    DEMO_DATA: 'false',
    FETCH_ALLOW_HOSTS: files.hostPort,
    RATE_LIMIT_UPLOAD: '1000/1m',
    // Tests fetch every representation and search often; the read and search budgets are not under test here.
    RATE_LIMIT_READ: '100000/1s',
    RATE_LIMIT_SEARCH: '100000/1s',
    REVERSE_SEARCH_CONCURRENCY: '1000',
    REVERSE_SEARCH_RATE: '100000/1s',
    UPLOAD_DAILY_CAP: '1000',
    ...options.env,
  });
  const storage = options.storage ?? new DirectoryStorage(dataDir);
  const store = storage.area('images');
  const logged: unknown[] = [];
  const engine = options.search ? new EmbeddedEngine() : undefined;
  const indexer = engine ? new Indexer({ db: testDb.db, engine, deleteRows: 'immediate' }) : undefined;
  await indexer?.ensureIndexes();
  const requestDb = options.requestPool ? createDatabase(testDb.url, options.requestPool) : undefined;
  const parts: AppParts = {
    config,
    db: requestDb ?? testDb.db,
    engine: engine ?? stubEngine,
    logger: { error: (obj) => logged.push(obj) },
    storage,
    ...(options.upload ? { upload: options.upload } : {}),
  };
  const deps = composeApp(parts);
  const served = await serveApp(createApp(deps));
  const url = served.url;

  const api = async (path: string, init?: RequestInit) => readAnswer(await fetch(`${url}/api/v1/json${path}`, init));
  const makeWorker = () => new JobWorker({ db: testDb.db, handlers: createJobHandlers({ db: testDb.db, fileStore: store, config }), pollMs: 50 });
  const worker = makeWorker();

  return {
    db: testDb.db,
    deps,
    uploader,
    dbUrl: testDb.url,
    config,
    dataDir,
    store,
    url,
    files,
    requested,
    serve(path, s) {
      routes.set(path, s);
      return `${files.origin}${path}`;
    },
    get(pathOrCdnUrl) {
      const path = pathOrCdnUrl.startsWith(CDN_URL) ? pathOrCdnUrl.slice(CDN_URL.length) : pathOrCdnUrl;
      return fetch(`${url}${path}`);
    },
    api,
    submit(key, body, init) {
      const query = key === null ? '' : `?key=${encodeURIComponent(key)}`;
      return api(`/images${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...init?.headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    },
    async drain() {
      const ran = await worker.drain();
      await recordChangeFeedOf(parts.db).sync();
      return ran;
    },
    async sync() {
      if (!indexer) throw new Error('the harness was started without search');
      await indexer.syncOnce();
    },
    worker: makeWorker,
    logged,
    async close() {
      await served.close();
      await files.close();
      await requestDb?.$client.end({ timeout: 5 });
      await testDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The rating tags, as a seeded board has them. */
async function seedBoard(db: Database) {
  for (const name of ['safe', 'suggestive', 'questionable', 'explicit', 'semi-grimdark', 'grimdark', 'grotesque']) {
    await insertTag(db, name, { category: 'rating' });
  }
}

/** A user (verified unless said otherwise) and an API key of theirs. */
export async function userWithKey(db: Database, values: Parameters<typeof insertUser>[1] = {}) {
  const user = await insertUser(db, { verified: true, ...values });
  const key = await insertKey(db, user.id);
  return { user, key };
}

export const PNG = { 'content-type': 'image/png' };
