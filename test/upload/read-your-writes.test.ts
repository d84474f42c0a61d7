/**
 * A write answered by the API is never followed by a stale read from the app's caches: each
 * upload raises its tags' image counts, and the tag's answer read the moment the upload is
 * answered (served from the cache of rendered tags) already carries the new count. The caches
 * learn of changes from PostgreSQL's announcements, which arrive after the commit; the app waits
 * for them before answering a write (`src/http/middleware/read-your-writes.ts`).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import { insertTag } from '../http/harness.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

let h: UploadHarness;
let key: string;

beforeAll(async () => {
  h = await startUploadHarness({ search: true });
  await insertTag(h.db, 'counted');
  key = h.uploader.key;
  await h.sync();
  // the caches keep answers only while the record-change feed listens (from the first request on)
  await h.api('/search/tags?q=counted');
  const feed = recordChangeFeedOf(h.db);
  for (let i = 0; i < 200 && !feed.listening; i++) await new Promise((r) => setTimeout(r, 25));
  if (!feed.listening) throw new Error('the record-change feed did not start listening');
});

afterAll(async () => {
  await h?.close();
});

const countedImages = async () => {
  const res = await h.api('/search/tags?q=counted');
  expect(res.status).toBe(200);
  return res.body.tags[0].images as number;
};

it('reads each upload’s new tag count at once, twenty times running', async () => {
  let expected = await countedImages();
  // read twice, so the answer is the cached one from here on
  expect(await countedImages()).toBe(expected);
  for (let i = 0; i < 20; i++) {
    const png = await sharp({ create: { width: 40 + i, height: 30, channels: 3, background: { r: 10 * i, g: 90, b: 200 } } }).png().toBuffer();
    const res = await h.submit(key, { url: h.serve(`/counted-${i}.png`, { body: png }), image: { tag_input: 'safe, solo, counted' } });
    expect(res.status).toBe(200);
    expected++;
    expect(await countedImages()).toBe(expected);
  }
});
