/**
 * The request pool's statement timeout is for reads; writes run under a bound of their own
 * (DATABASE_WRITE_TIMEOUT_SECONDS, `SET LOCAL` in each transaction). Here the pool cuts statements
 * off after 300 ms and statements inside transactions after 3 s, and another session holds the
 * lock an upload of the same file takes (its duplicate check, as a concurrent upload of that file
 * holds it): an upload waiting 1 s behind it commits and answers 200; one still waiting after 3 s
 * answers 503 with Retry-After and the JSON error, and nothing of it is written.
 */
import { createHash } from 'node:crypto';
import { count } from 'drizzle-orm';
import postgres from 'postgres';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

/** The advisory lock class of an upload's duplicate check (images/submit.ts), keyed by the file's SHA-512. */
const HASH_LOCK_CLASS = 74_623;

let h: UploadHarness;
let key: string;
let locker: postgres.Sql;
let seq = 0;

beforeAll(async () => {
  h = await startUploadHarness({ requestPool: { statementTimeoutMs: 300, transactionStatementTimeoutMs: 3_000 } });
  key = h.uploader.key;
  locker = postgres(h.dbUrl, { max: 1, onnotice: () => {} });
});

afterAll(async () => {
  await locker?.end({ timeout: 5 });
  await h?.close();
});

/** A new file served for upload, and the lock its upload takes. */
async function servedPng(): Promise<{ url: string; lock: () => Promise<unknown>; unlock: () => Promise<unknown> }> {
  const png = await sharp({ create: { width: 32, height: 24, channels: 3, background: { r: 40 + ++seq, g: 90, b: 160 } } }).png().toBuffer();
  const sha = createHash('sha512').update(png).digest('hex');
  return {
    url: h.serve(`/write-${seq}.png`, { body: png }),
    lock: () => locker`select pg_advisory_lock(${HASH_LOCK_CLASS}, hashtext(${sha}))`,
    unlock: () => locker`select pg_advisory_unlock(${HASH_LOCK_CLASS}, hashtext(${sha}))`,
  };
}

const imageCount = async () => (await h.db.select({ n: count() }).from(s.images))[0]!.n;

describe('writes under the request pool', () => {
  it('commit when they wait for a lock longer than the statement timeout', async () => {
    const { url, lock, unlock } = await servedPng();
    await lock();
    const released = new Promise<void>((resolve) => setTimeout(() => void unlock().then(() => resolve()), 1_000));
    const res = await h.submit(key, { url, image: { tag_input: 'safe, solo, pony' } });
    await released;
    expect(res.status).toBe(200);
    expect(res.body.image).toMatchObject({ id: expect.any(Number) });
  });

  it('answer 503 with Retry-After and the JSON error past the write timeout, writing nothing', async () => {
    const { url, lock, unlock } = await servedPng();
    const before = await imageCount();
    await lock();
    try {
      const res = await h.submit(key, { url, image: { tag_input: 'safe, solo, pony' } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toEqual({ error: 'Service temporarily unavailable, retry later' });
    } finally {
      await unlock();
    }
    expect(await imageCount()).toBe(before);
  });
});
