/**
 * Harness of the search API tests: a real database of the file's own, a real in-memory embedded
 * engine on its own thread (as `npm start` runs it), an indexer that fills it from the database (`reindex()`) or follows the outbox
 * (`indexer.start()`), and the app on an ephemeral port, as in the read-API harness. Request
 * limits are off: these tests send far more searches per second than a client may.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Indexer } from '../../indexer/index.js';
import type { Config } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { createApp } from '../../src/http/app.js';
import { createReadCaches, type ReadCaches } from '../../src/caches/read-caches.js';
import { EngineThread } from '../../src/search/embedded/index.js';
import { serveApp, testConfig } from '../http/harness.js';
import { createTestDatabase } from '../support/db.js';
import { readAnswer, type Answer } from '../support/answer.js';

export interface SearchHarness {
  db: Database;
  config: Config;
  url: string;
  engine: EngineThread;
  indexer: Indexer;
  /** The app's caches of image JSON and filters. */
  caches: ReadCaches;
  /** What the app logged (errors and warnings). */
  logged: { level: 'error' | 'warn'; obj: unknown; msg: string | undefined }[];
  /** Rebuild every index from the database. */
  reindex(): Promise<void>;
  /** GET a JSON API path (relative to /api/v1/json): status, headers and parsed body. */
  api(path: string, init?: RequestInit): Promise<Answer>;
  /** GET a JSON API path and expect 200; returns the body. */
  ok(path: string): Promise<any>;
  close(): Promise<void>;
}

export async function startSearchHarness(): Promise<SearchHarness> {
  const testDb = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-search-api-'));
  const config = testConfig(dataDir);
  const engine = new EngineThread();
  // as the server builds it (src/main.ts): default polling, LISTEN/NOTIFY for promptness
  const indexer = new Indexer({ db: testDb.db, engine });
  await indexer.ensureIndexes();
  const logged: SearchHarness['logged'] = [];
  const caches = createReadCaches(testDb.db);
  const app = createApp({
    config,
    db: testDb.db,
    engine,
    caches,
    logger: {
      error: (obj, msg) => logged.push({ level: 'error', obj, msg }),
      warn: (obj, msg) => logged.push({ level: 'warn', obj, msg }),
    },
  });
  const served = await serveApp(app);
  const api: SearchHarness['api'] = async (path, init) => readAnswer(await fetch(`${served.url}/api/v1/json${path}`, init));
  return {
    db: testDb.db,
    config,
    url: served.url,
    engine,
    indexer,
    caches,
    logged,
    api,
    async reindex() {
      await indexer.reindex();
      await indexer.syncOnce();
    },
    async ok(path) {
      const res = await api(path);
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body;
    },
    async close() {
      await served.close();
      await indexer.stop();
      await engine.close();
      await testDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Ids of a list answer. */
export const idsOf = (list: readonly { id: number }[]): number[] => list.map((x) => x.id);

/** A query string from parameters (values encoded; `undefined` left out). */
export function qs(params: Record<string, string | number | undefined>): string {
  const parts = Object.entries(params).flatMap(([k, v]) => (v === undefined ? [] : [`${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`]));
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/**
 * Poll `check` (a search) every 10 ms until it holds; resolves to the milliseconds it took,
 * measured to the end of the answer that shows the change (an upper bound). Gives up after
 * `giveUpMs`.
 */
export async function untilSearchShows(check: () => Promise<boolean>, giveUpMs = 5000): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > giveUpMs) throw new Error('the change never showed in search');
    await new Promise((r) => setTimeout(r, 10));
  }
}
