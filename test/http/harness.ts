/**
 * Test harness of the HTTP tests: a real database of the file's own, the app served by
 * `@hono/node-server` on an ephemeral port, and fixture builders that insert rows with Drizzle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { loadConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import { createApp, type AppParts } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { createSocketServer } from '../../src/http/routes/socket.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { generateApiKey } from '../../src/contexts/users/api-keys.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { readAnswer, type Answer } from '../support/answer.js';

/** The read API never searches: any call is a test failure. */
export const stubEngine: SearchEngine = new Proxy({ kind: 'embedded' } as SearchEngine, {
  get(target, prop) {
    if (prop in target) return target[prop as keyof SearchEngine];
    // not methods: a promise's `then`, and the engine's caches (it has none to report)
    if (prop === 'then' || prop === 'caches') return undefined;
    return () => Promise.reject(new Error(`search engine not expected in read API tests (${String(prop)})`));
  },
});

export const BASE_URL = 'http://booru.test';
export const CDN_URL = 'https://cdn.booru.test';
export const SITE_NAME = 'Tagwise';
export const SALT = 'test-anonymous-salt';

export interface Harness {
  db: Database;
  config: Config;
  url: string;
  dataDir: string;
  /** GET (or another method) relative to the server root. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** GET a JSON API path (relative to /api/v1/json); returns status, headers and parsed body. */
  api(path: string, init?: RequestInit): Promise<Answer>;
  /** What the app logged as errors. */
  logged: unknown[];
  close(): Promise<void>;
}

/** Serve an app on an ephemeral local port, with the socket's websocket upgrades as `npm start` does. */
export async function serveApp(app: { fetch: (req: Request) => Response | Promise<Response> }): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = createSocketServer();
  const server: ServerType = await new Promise((resolve) => {
    const srv = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', websocket: { server: sockets } }, () => resolve(srv));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets.clients) socket.terminate();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The configuration of the test apps: the test site's URLs, name and salt, files under `dataDir`,
 * no demo board, and no request limits, reverse-search bounds included (suites send bursts of
 * requests from one address; request limits have their own tests); `env` adds settings.
 */
export function testConfig(dataDir: string, env: Record<string, string> = {}): Config {
  return loadConfig({ BASE_URL, CDN_URL, DATA_DIR: dataDir, SITE_NAME, ANONYMOUS_NAME_SALT: SALT, DEMO_DATA: 'false', RATE_LIMITS: 'off',
    REVERSE_SEARCH_CONCURRENCY: '1000', REVERSE_SEARCH_RATE: '100000/1s', ...env });
}

export async function startHarness(overrides: Partial<AppParts> = {}): Promise<Harness> {
  const testDb: TestDatabase = await createTestDatabase();
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-http-'));
  const config = testConfig(dataDir);
  const logged: unknown[] = [];
  const app = createApp(composeApp({
    config,
    db: testDb.db,
    engine: stubEngine,
    logger: { error: (obj) => logged.push(obj) },
    ...overrides,
  }));
  const served = await serveApp(app);
  const url = served.url;
  const request = (path: string, init?: RequestInit) => fetch(url + path, init);
  return {
    db: testDb.db,
    config,
    url,
    dataDir,
    request,
    api: async (path, init) => readAnswer(await request(`/api/v1/json${path}`, init)),
    logged,
    async close() {
      await served.close();
      await testDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Fixture builders
// ---------------------------------------------------------------------------------------------

let counter = 0;
const unique = (prefix: string) => `${prefix}${++counter}`;

export async function insertUser(db: Database, values: Partial<typeof s.users.$inferInsert> = {}) {
  const name = values.name ?? unique('user');
  const [row] = await db
    .insert(s.users)
    .values({ name, slug: name.toLowerCase().replace(/ /g, '+'), ...values })
    .returning();
  return row!;
}

export async function insertKey(db: Database, userId: number): Promise<string> {
  const { key, hash, prefix } = generateApiKey();
  await db.insert(s.apiKeys).values({ userId, keyHash: hash, prefix });
  return key;
}

/** Philomena-style slug for the names the tests use. */
export function slugFor(name: string): string {
  return name
    .replace(/-/g, '-dash-')
    .replace(/\//g, '-fwslash-')
    .replace(/\\/g, '-bwslash-')
    .replace(/:/g, '-colon-')
    .replace(/\./g, '-dot-')
    .replace(/\+/g, '-plus-')
    .replace(/ /g, '+');
}

export async function insertTag(db: Database, name: string, values: Partial<typeof s.tags.$inferInsert> = {}) {
  const colon = name.indexOf(':');
  const namespace = colon > 0 ? name.slice(0, colon) : null;
  const [row] = await db
    .insert(s.tags)
    .values({
      name,
      slug: slugFor(name),
      namespace,
      nameInNamespace: namespace ? name.slice(colon + 1) : name,
      ...values,
    })
    .returning();
  return row!;
}

export interface ImageFixture {
  values?: Partial<typeof s.images.$inferInsert>;
  tags?: { id: number }[];
  sources?: string[];
}

export async function insertImage(db: Database, fixture: ImageFixture = {}) {
  const [image] = await db
    .insert(s.images)
    .values({
      imageName: 'test.png',
      imageWidth: 100,
      imageHeight: 100,
      imageSize: 1024,
      imageOrigSize: 1024,
      imageFormat: 'png',
      imageMimeType: 'image/png',
      imageAspectRatio: 1,
      imageSha512Hash: 'a'.repeat(128),
      imageOrigSha512Hash: 'b'.repeat(128),
      processed: true,
      thumbnailsGenerated: true,
      ...fixture.values,
    })
    .returning();
  const tags = fixture.tags ?? [];
  if (tags.length > 0) {
    await db.insert(s.imageTaggings).values(tags.map((t, position) => ({ imageId: image!.id, tagId: t.id, position })));
  }
  const sources = fixture.sources ?? [];
  if (sources.length > 0) {
    await db.insert(s.imageSources).values(sources.map((source, position) => ({ imageId: image!.id, source, position })));
  }
  return image!;
}

export async function insertFilter(db: Database, values: Partial<typeof s.filters.$inferInsert> & { name: string }) {
  const [row] = await db.insert(s.filters).values(values).returning();
  return row!;
}

/** `YYYY-MM-DDTHH:MM:SSZ` of a date. */
export const iso = (d: Date) => `${d.toISOString().slice(0, 19)}Z`;

/** `Y/M/D` of a date, UTC, not zero-padded. */
export const ymd = (d: Date) => `${d.getUTCFullYear()}/${d.getUTCMonth() + 1}/${d.getUTCDate()}`;
