import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import type { Indexer, ReindexResult } from '../../indexer/index.js';
import type { Database } from '../../src/db/client.js';
import { images } from '../../src/db/schema/index.js';
import type { SearchEngine } from '../../src/search/engine.js';

/** Retry `check` until it passes or `ms` elapse; rethrows the last failure. */
export async function eventually(check: () => Promise<void> | void, ms = 1000, step = 20): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      await check();
      return Date.now() - started;
    } catch (err) {
      if (Date.now() - started > ms) throw err;
      await new Promise((r) => setTimeout(r, step));
    }
  }
}

export function expectDefined<T>(v: T | undefined | null): T {
  expect(v).toBeDefined();
  expect(v).not.toBeNull();
  return v as T;
}

export interface ReindexUnderSearch {
  results: ReindexResult[];
  searches: number;
  failures: number;
  /** Searches that counted fewer images than the table held. */
  wrongTotals: number;
  /** The image whose score became 9999 and the one added with score 8888 during the build. */
  changed: number;
  added: number;
}

/**
 * Reindexes `images` in batches of 500 while a loop keeps searching, and once `changeAfter`
 * documents are loaded changes one image's score to 9999 and adds one with score 8888.
 */
export async function reindexUnderSearch(db: Database, indexer: Indexer, engine: SearchEngine, changeAfter: number): Promise<ReindexUnderSearch> {
  const total = await db.$count(images);
  let searches = 0;
  let failures = 0;
  let wrongTotals = 0;
  let stop = false;
  const searching = (async () => {
    while (!stop) {
      try {
        const r = await engine.search('images', { query: { match_all: {} }, sort: [{ id: { order: 'desc' } }], size: 15 });
        if (r.total < total) wrongTotals++;
        searches++;
      } catch {
        failures++;
      }
      await new Promise((r) => setImmediate(r));
    }
  })();
  let change: Promise<{ changed: number; added: number }> | undefined;
  const results = await indexer.reindex(['images'], {
    batchSize: 500,
    onProgress: (p) => {
      if (p.phase === 'loading' && p.done >= changeAfter && change === undefined) {
        change = (async () => {
          const [row] = await db.select({ id: images.id }).from(images).orderBy(images.id).limit(1);
          await db.update(images).set({ score: 9999 }).where(eq(images.id, row!.id));
          const [img] = await db.insert(images).values({ imageFormat: 'png', imageMimeType: 'image/png', score: 8888 }).returning();
          return { changed: row!.id, added: img!.id };
        })();
      }
    },
  });
  stop = true;
  await searching;
  if (!change) throw new Error(`the reindex never reached ${changeAfter} documents`);
  return { results, searches, failures, wrongTotals, ...(await change) };
}
