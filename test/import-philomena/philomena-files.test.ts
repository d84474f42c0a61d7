/**
 * `--files DIR`: originals in Philomena's storage layout are hard-linked into the board's image
 * store and queued for the normal processing job, which then makes every representation.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sqlClientOf } from '../../src/db/client.js';
import { processStoredImage } from '../../src/contexts/images/process-job.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { bringFiles } from '../../src/import/philomena/files.js';
import { openLiveSource } from '../../src/import/philomena/live-source.js';
import { silentReporter } from '../../src/import/philomena/report.js';
import { migratePhilomena } from '../../src/import/philomena/run.js';
import { startHarness, type Harness } from '../http/harness.js';
import { createPhilomenaDatabase, type PhilomenaDatabase } from '../support/philomena/database.js';
import { fixtureRows } from '../support/philomena/rows.js';

let h: Harness;
let src: PhilomenaDatabase;
const storage = mkdtempSync(join(tmpdir(), 'philomena-files-'));
const original = join(storage, '2019/5/1/1/full.png');

beforeAll(async () => {
  h = await startHarness();
  src = await createPhilomenaDatabase('current', fixtureRows());
  const source = await openLiveSource(src.url);
  await migratePhilomena(h.db, source).finally(() => source.close());
  mkdirSync(join(storage, '2019/5/1/1'), { recursive: true });
  writeFileSync(original, await sharp({ create: { width: 400, height: 300, channels: 3, background: '#336699' } }).png().toBuffer());
  mkdirSync(join(storage, '2019/5/3/3'), { recursive: true });
  writeFileSync(join(storage, '2019/5/3/3/full.gif'), 'GIF89a not really');
});
afterAll(async () => {
  await h?.close();
  await src?.drop();
  rmSync(storage, { recursive: true, force: true });
});

test('originals are linked, queued for processing, and processed by the normal job', async () => {
  const store = new DirectoryStorage(join(h.dataDir, 'images'));
  const summary = await bringFiles(h.db, storage, store, silentReporter);
  // Nine images are visible; two of them have files in the directory.
  expect(summary).toEqual({ linked: 2, copied: 0, missing: 7 });
  expect(statSync(store.resolve('2019/5/1/1/full.png')).ino).toBe(statSync(original).ino);

  const sql = sqlClientOf(h.db);
  const jobs = await sql`select kind, (payload->>'imageId')::int as image_id from jobs order by image_id`;
  expect(jobs.map((j) => [j.kind, j.image_id])).toEqual([['process-image', 1], ['process-image', 3]]);
  const before = (await h.api('/images/1')).body.image;
  expect([before.thumbnails_generated, before.processed]).toEqual([false, false]);

  expect(await processStoredImage({ db: h.db, fileStore: store }, 1)).toBe('processed');
  // The rendered image is refreshed by the write's change notice, which arrives a moment later.
  let after = (await h.api('/images/1')).body.image;
  for (const until = Date.now() + 5_000; !after.processed && Date.now() < until; ) {
    await new Promise((r) => setTimeout(r, 20));
    after = (await h.api('/images/1')).body.image;
  }
  expect([after.thumbnails_generated, after.processed, after.width, after.height]).toEqual([true, true, 400, 300]);
  expect(await store.exists('2019/5/1/1/thumb.png')).toBe(true);
  // The Philomena store is left as it was: processing replaced the link, not the file behind it.
  expect(statSync(original).ino).not.toBe(statSync(store.resolve('2019/5/1/1/full.png')).ino);

  // A second run only looks for what is still missing.
  expect(await bringFiles(h.db, storage, store, silentReporter)).toEqual({ linked: 0, copied: 0, missing: 7 });
});
