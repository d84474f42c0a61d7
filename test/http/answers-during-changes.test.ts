/**
 * A search page of images for an anonymous caller, made while a change was heard, against the
 * real app and PostgreSQL: it is kept whole (and answered from memory the next time) unless the
 * change touched one of its images, as on a board edited every second nearly every slow page is
 * made while some change is heard. The engine is scripted (the hits are chosen here); the page's
 * images are loaded from PostgreSQL while a lock held here makes that load wait, and a change is
 * made and heard meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChanges, recordChangeFeedOf, type RecordChange } from '../../src/db/record-change-feed.js';
import type { Database } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { createReadCaches, type ReadCaches } from '../../src/caches/read-caches.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { insertFilter, insertImage, insertTag, serveApp, testConfig } from './harness.js';

let testDb: TestDatabase;
let db: Database;
let caches: ReadCaches;
let served: { url: string; close(): Promise<void> };
let dataDir: string;
/** The images the engine answers. */
let hits: number[] = [];
const engine = new Proxy({ kind: 'embedded' } as SearchEngine, {
  get(target, prop) {
    if (prop === 'search') return async () => ({ ids: hits, total: hits.length });
    return Reflect.get(target, prop);
  },
});

/** Resolves once the app's change feed has heard `kind:id` (subscribe before the write). */
function heard(kind: string, id: number): Promise<void> {
  return new Promise((resolve) => {
    const stop = recordChangeFeedOf(db).subscribe((change: RecordChange) => {
      if (change.kind === kind && 'id' in change && change.id === id) {
        stop();
        resolve();
      }
    });
  });
}

/** An image's description changed as any write does (announced), heard by the app. */
async function changeDescription(id: number, description: string): Promise<void> {
  const done = heard('images', id);
  await db.update(s.images).set({ description }).where(eq(s.images.id, id));
  await done;
}

/** Every announcement of the writes so far has been heard. */
async function settled(): Promise<void> {
  const marker = heard('settled', 1);
  await announceChanges(db, [{ kind: 'settled', id: 1 }]);
  await marker;
}

/**
 * The page asked while its images' load from PostgreSQL waits (the image cache emptied first, a
 * table it reads locked here), `during` made meanwhile; then the lock is let go.
 */
async function pageWhileLoading(during: () => Promise<void>) {
  caches.images.clear();
  caches.imageAnswers.clear();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const holding = db.$client.begin(async (tx) => {
    await tx`lock table image_sources in access exclusive mode`;
    locked();
    await released;
  });
  await isLocked;
  const answer = page();
  for (let waited = 0; ; waited += 10) {
    const [row] = await db.$client<{ n: number }[]>`select count(*)::int as n from pg_locks where not granted and relation = 'image_sources'::regclass`;
    if (row!.n > 0) break;
    if (waited > 5000) throw new Error('the page never waited for the lock');
    await new Promise((r) => setTimeout(r, 10));
  }
  await during();
  release();
  await holding;
  return answer;
}

const page = async () => {
  const res = await fetch(`${served.url}/api/v1/json/search/images?q=safe`);
  expect(res.status).toBe(200);
  return (await res.json()) as { images: { id: number; description: string }[] };
};

beforeAll(async () => {
  testDb = await createTestDatabase();
  db = testDb.db;
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-answers-'));
  caches = createReadCaches(db);
  served = await serveApp(createApp(composeApp({ config: testConfig(dataDir), db, engine, caches, logger: { error: () => {} } })));
  const started = Date.now();
  while (!caches.feed.listening) {
    if (Date.now() - started > 5000) throw new Error('the change feed never started listening');
    await new Promise((r) => setTimeout(r, 10));
  }
  await insertFilter(db, { name: 'Default', system: true });
});

afterAll(async () => {
  await served?.close();
  await testDb?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('an answer made while a change was heard', () => {
  it('is kept when the change touched none of its images, and not when it touched one', async () => {
    const safe = await insertTag(db, 'safe', { category: 'rating' });
    const [a, b, other] = [await insertImage(db, { tags: [safe] }), await insertImage(db, { tags: [safe] }), await insertImage(db, { tags: [safe] })];
    await settled();
    hits = [a.id, b.id];
    // asked once: the request is kept for the next asks, its images are in the image cache
    await page();
    caches.imageAnswers.clear();

    // another image changed while the page was made: the page is kept
    expect((await pageWhileLoading(() => changeDescription(other.id, 'changed elsewhere'))).images.map((i) => i.id)).toEqual([a.id, b.id]);
    expect(caches.imageAnswers.size).toBe(1);

    // an image of the page changed while it was made: not kept, and the next page shows the change
    await pageWhileLoading(() => changeDescription(a.id, 'changed on the page'));
    expect(caches.imageAnswers.size).toBe(0);
    expect((await page()).images.find((i) => i.id === a.id)?.description).toBe('changed on the page');
    expect(caches.imageAnswers.size).toBe(1);
  });
});
