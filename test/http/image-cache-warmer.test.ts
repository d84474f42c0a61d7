/**
 * The warm start of the image cache against a real PostgreSQL: it loads the newest visible images
 * first and stops when one more batch would not fit the budget, or when all are loaded, or when
 * stopped; writes made while it runs leave no stale entry behind.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announceChanges, changeFeedOf } from '../../src/db/change-feed.js';
import type { Database } from '../../src/db/client.js';
import { createReadCaches, type ReadCaches } from '../../src/caches/read-caches.js';
import { warmImageCache } from '../../src/http/render/image-cache-warmer.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { insertImage, insertTag, stubEngine, testConfig } from './harness.js';

let t: TestDatabase;
/** The visible images, oldest first. */
const visible: number[] = [];
let hidden: number;

async function liveCaches(maxBytes: number): Promise<ReadCaches> {
  const caches = createReadCaches(t.db, { images: { maxBytes } });
  for (let i = 0; i < 200 && !caches.feed.live; i++) await new Promise((r) => setTimeout(r, 25));
  expect(caches.feed.live).toBe(true);
  return caches;
}

const deps = (caches: ReadCaches) => ({ config: testConfig('/nonexistent'), db: t.db, engine: stubEngine, caches });

/** The ids the cache holds, in ascending order. */
const held = (caches: ReadCaches, ids: readonly number[]) => [...caches.images.lookup(ids).found.keys()].sort((a, b) => a - b);

/** Every announcement of the writes so far has been heard by the feed of `db` (listening already). */
async function settled(db: Database): Promise<void> {
  const marker = new Promise<void>((resolve) => {
    const stop = changeFeedOf(db).subscribe((c) => {
      if (c.kind === 'warm_settled') {
        stop();
        resolve();
      }
    });
  });
  await announceChanges(db, [{ kind: 'warm_settled', id: 1 }]);
  await marker;
}

beforeAll(async () => {
  t = await createTestDatabase();
  const tag = await insertTag(t.db, 'safe', { category: 'rating' });
  for (let i = 0; i < 30; i++) {
    visible.push((await insertImage(t.db, { tags: [tag], values: { description: `image ${i}` } })).id);
    if (i === 14) hidden = (await insertImage(t.db, { values: { hiddenFromUsers: true } })).id;
  }
});

afterAll(async () => {
  await t?.drop();
});

describe('warming the image cache', () => {
  it('loads every visible image when the budget allows, and not the hidden one', async () => {
    const caches = await liveCaches(64 * 1024 * 1024);
    const result = await warmImageCache(deps(caches), { batch: 7 });
    expect(result).toMatchObject({ stop: 'all', loaded: 30, images: 30, bytes: caches.images.heldBytes });
    expect(held(caches, [...visible, hidden])).toEqual(visible);
  });

  it('fills the budget with the newest images and stops before one more batch would not fit', async () => {
    const sizing = await liveCaches(64 * 1024 * 1024);
    await warmImageCache(deps(sizing), {});
    const perImage = sizing.images.heldBytes / sizing.images.size;
    const budget = Math.floor(10.5 * perImage);
    const caches = await liveCaches(budget);
    const result = await warmImageCache(deps(caches), { batch: 3 });
    expect(result.stop).toBe('full');
    expect(caches.images.heldBytes).toBeLessThanOrEqual(budget);
    // three batches of three fit, a fourth would not have
    expect(result.images).toBe(9);
    expect(held(caches, visible)).toEqual(visible.slice(-9));
  });

  it('loads nothing when the cache may keep nothing (IMAGE_CACHE_MB=0)', async () => {
    const caches = await liveCaches(0);
    const result = await warmImageCache(deps(caches), { batch: 4 });
    expect(result).toMatchObject({ stop: 'full', loaded: 0, images: 0, bytes: 0 });
  });

  it('stops when asked, after the batch in hand', async () => {
    const caches = await liveCaches(64 * 1024 * 1024);
    const controller = new AbortController();
    const result = await warmImageCache(deps(caches), { batch: 4, signal: controller.signal, onBatch: () => controller.abort() });
    expect(result).toMatchObject({ stop: 'stopped', loaded: 4 });
    expect(held(caches, visible)).toEqual(visible.slice(-4));
  });

  it('leaves no stale entry behind when images change while it runs', async () => {
    const caches = await liveCaches(64 * 1024 * 1024);
    const writes: Promise<unknown>[] = [];
    let batches = 0;
    // after each batch, change one image already loaded and one not loaded yet, announced as any
    // write is, racing the next batch's load
    const result = await warmImageCache(deps(caches), {
      batch: 5,
      onBatch: () => {
        batches++;
        const loadedOne = visible[visible.length - 5 * batches]!;
        const comingOne = visible[visible.length - 5 * batches - 2];
        for (const id of [loadedOne, comingOne]) {
          if (id !== undefined) writes.push(t.db.execute(sql`update images set description = ${`changed after batch ${batches}`} where id = ${id}`));
        }
      },
    });
    expect(result.stop).toBe('all');
    await Promise.all(writes);
    await settled(t.db);
    const rows = await t.db.execute<{ id: number; description: string }>(sql`select id, description from images where hidden_from_users = false`);
    const stored = new Map(rows.map((r) => [Number(r.id), r.description]));
    const { found } = caches.images.lookup(visible);
    expect(found.size).toBeGreaterThan(0);
    for (const [id, image] of found) {
      const json = JSON.parse(Buffer.from(image.json.subarray(1)).toString()) as { description: string };
      expect(json.description, `image ${id}`).toBe(stored.get(id));
    }
    expect([...stored.values()].filter((d) => d.startsWith('changed')).length).toBeGreaterThan(5);
  });
});
