/**
 * Harness of the operations tests: a real database of the file's own, a real (in-memory) embedded
 * engine with its indices created, the app on an ephemeral port served as `src/main.ts` serves it
 * (`src/http/server/server.ts`, with the socket's websocket upgrades), with a pino logger whose lines the test reads, and request helpers that can pose as any client address (`TRUST_PROXY=true` and
 * `X-Forwarded-For`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Indexer } from '../../indexer/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import type { Hono } from 'hono';
import { createApp, type AppParts, type AppEnv } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { createLogger } from '../../src/log.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { createSocketServer } from '../../src/http/routes/socket.js';
import { startHttpServer } from '../../src/http/server/server.js';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { readAnswer, type Answer } from '../support/answer.js';

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface OpsHarness {
  db: Database;
  config: Config;
  url: string;
  engine: SearchEngine;
  /** Every line the app logged, parsed. */
  lines: LogLine[];
  /** The raw text the app logged. */
  raw(): string;
  /** A request to the app; `ip` poses as that client (needs `TRUST_PROXY=true`). */
  request(path: string, init?: RequestInit & { ip?: string }): Promise<Response>;
  /** Like `request`, with the body parsed as JSON when it is JSON. */
  json(path: string, init?: RequestInit & { ip?: string }): Promise<Answer>;
  close(): Promise<void>;
}

export interface OpsOptions {
  env?: Record<string, string>;
  deps?: Partial<AppParts>;
  /** An existing database (the harness then neither creates nor drops one). */
  db?: Database;
  /** Add routes of the test's own to the app, before it serves. */
  routes?: (app: Hono<AppEnv>) => void;
}

export async function startOps(options: OpsOptions = {}): Promise<OpsHarness> {
  const testDb: TestDatabase | undefined = options.db ? undefined : await createTestDatabase();
  const db = options.db ?? testDb!.db;
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-ops-'));
  const config = loadConfig({
    BASE_URL: 'https://booru.test',
    CDN_URL: 'https://cdn.booru.test',
    DATA_DIR: dataDir,
    DEMO_DATA: 'false',
    LOG_LEVEL: 'debug',
    ...options.env,
  });
  let text = '';
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  const logger = createLogger(config, stream);
  const embedded = new EmbeddedEngine({});
  await new Indexer({ db, engine: embedded }).ensureIndexes();
  const engine = options.deps?.engine ?? embedded;
  const app = createApp(composeApp({ config, db, engine, logger, ...options.deps }));
  options.routes?.(app);
  // the server main.ts runs, with its limits on slow and malformed clients
  const { server } = startHttpServer(app.fetch, { port: 0, hostname: '127.0.0.1', limits: config.http, websocket: createSocketServer() });
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const served = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  };
  const request: OpsHarness['request'] = (path, init = {}) => {
    const { ip, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (ip) headers.set('X-Forwarded-For', ip);
    return fetch(served.url + path, { ...rest, headers });
  };
  return {
    db,
    config,
    url: served.url,
    engine,
    lines,
    raw: () => text,
    request,
    json: async (path, init) => readAnswer(await request(path, init)),
    async close() {
      await served.close();
      await embedded.close();
      await testDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A client address of its own for each test, so tests in a file do not share budgets. */
let nextAddress = 0;
export function freshIp(): string {
  nextAddress++;
  return `198.51.${Math.floor(nextAddress / 250)}.${(nextAddress % 250) + 1}`;
}
