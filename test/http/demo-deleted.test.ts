/**
 * The issue's own scenario on the demo board: its image deleted for a rule violation and its
 * merged duplicates, served by the real app over the embedded engine. Anonymous callers get only
 * the reference's stub, no view finds or describes them, and none of their files is served.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { Indexer } from '../../indexer/index.js';
import { datePath } from '../../src/media/storage.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { seedDemoBoard } from '../../src/seed/demo.js';
import { readAnswer, type Answer } from '../support/answer.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { serveApp, testConfig } from './harness.js';

let t: TestDatabase;
let dataDir: string;
let server: { url: string; close(): Promise<void> };
let engine: EmbeddedEngine;
let hidden: (typeof s.images.$inferSelect)[];

const api = async (path: string): Promise<Answer> => readAnswer(await fetch(`${server.url}/api/v1/json${path}`));

beforeAll(async () => {
  t = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-demo-deleted-'));
  await seedDemoBoard(t.db, { seed: 7, images: 12, storage: new DirectoryStorage(dataDir), maxImageSide: 200 });
  engine = new EmbeddedEngine();
  const indexer = new Indexer({ db: t.db, engine, deleteRows: 'immediate' });
  await indexer.ensureIndexes();
  await indexer.syncOnce();
  server = await serveApp(createApp(composeApp({ config: testConfig(dataDir), db: t.db, engine, logger: { error: () => {} } })));
  hidden = await t.db.select().from(s.images).where(eq(s.images.hiddenFromUsers, true)).orderBy(asc(s.images.id));
}, 300_000);

afterAll(async () => {
  await server?.close();
  await engine?.close();
  await t?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the demo board’s deleted and merged images', () => {
  it('has one image deleted for a rule violation and merged ones, each with its files on disk', () => {
    expect(hidden.filter((i) => i.duplicateId === null && i.deletionReason !== null)).toHaveLength(1);
    expect(hidden.filter((i) => i.duplicateId !== null).length).toBeGreaterThanOrEqual(1);
  });

  it('answers each as its stub, and never one of its files', async () => {
    for (const image of hidden) {
      const { status, body } = await api(`/images/${image.id}`);
      expect(status).toBe(200);
      const merged = image.duplicateId !== null;
      expect(body.image).toStrictEqual({
        id: image.id,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        first_seen_at: expect.any(String),
        deletion_reason: merged ? null : image.deletionReason,
        duplicate_of: image.duplicateId,
        hidden_from_users: true,
      });
      const dir = join(dataDir, 'images', datePath(image.createdAt), String(image.id));
      const names = readdirSync(dir);
      expect(names.length, dir).toBeGreaterThan(1);
      const d = datePath(image.createdAt);
      const ext = image.imageFormat === 'svg' ? 'png' : image.imageFormat;
      for (const path of [...names.map((n) => `/img/${d}/${image.id}/${n}`), `/img/view/${d}/${image.id}.${ext}`, `/img/download/${d}/${image.id}.${image.imageFormat}`]) {
        const res = await fetch(`${server.url}${path}`);
        expect(res.status, path).toBe(404);
        await res.arrayBuffer();
      }
    }
  });

  it('leaves them out of searches and oEmbed, and never features one', async () => {
    const ids = new Set(hidden.map((i) => i.id));
    const everything = await t.db.select().from(s.filters).where(eq(s.filters.name, 'Everything'));
    const page = await api(`/search/images?q=*&per_page=50&filter_id=${everything[0]!.id}`);
    expect(page.status).toBe(200);
    expect(page.body.total).toBe(12 - ids.size);
    expect(page.body.images.filter((i: { id: number }) => ids.has(i.id))).toEqual([]);
    for (const id of ids) expect((await api(`/oembed?url=${encodeURIComponent(`/images/${id}`)}`)).status).toBe(404);
    const featured = await api('/images/featured');
    expect(ids.has(featured.body.image.id)).toBe(false);
  });
});
