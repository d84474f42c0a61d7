/**
 * Processing survives a killed worker: a worker process killed in the middle of an image (some
 * files written, the row untouched) leaves its job `running`; once the lock is stale a new worker
 * takes it again and the image converges to the same state a clean run gives.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { eq, inArray, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { processStoredImage } from '../../src/contexts/images/process-job.js';
import { STALE_LOCK_SECONDS } from '../../src/jobs/index.js';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import { startUploadHarness, type UploadHarness } from './harness.js';
import { pathFor } from '../../src/media/storage.js';
import { join } from 'node:path';

let h: UploadHarness;
let key: string;

beforeAll(async () => {
  h = await startUploadHarness();
  key = h.uploader.key;
});

afterAll(async () => {
  await h?.close();
});

async function submitDemo(seed: number, kind: 'png' | 'jpeg' | 'gif'): Promise<number> {
  const demo = await generateDemoImage(seed, kind);
  const res = await h.submit(key, { url: h.serve(`/restart/${demo.name}`, { body: demo.bytes }), image: { tag_input: 'safe, solo, pony' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.image.id;
}

async function jobsOf(ids: number[]) {
  return h.db
    .select()
    .from(s.jobs)
    .where(inArray(sql<number>`(${s.jobs.payload}->>'imageId')::int`, ids))
    .orderBy(s.jobs.id);
}

/** Pretend the lock of running jobs was taken long ago, as after a crash. */
async function ageLocks() {
  await h.db.execute(sql`update jobs set locked_at = now() - ${`${STALE_LOCK_SECONDS + 60} seconds`}::interval where state = 'running'`);
}

async function imageState(id: number) {
  const { body } = await h.api(`/images/${id}`);
  const files = await Promise.all(
    Object.entries(body.image.representations as Record<string, string>).map(async ([name, url]) => {
      const res = await h.get(url);
      return [name, res.status, createHash('sha256').update(Buffer.from(await res.arrayBuffer())).digest('hex')] as const;
    }),
  );
  return { image: body.image, files };
}

describe('restarting the job worker', () => {
  it('a worker process killed in the middle of an image: a new worker finishes every job', async () => {
    const ids = [await submitDemo(101, 'jpeg'), await submitDemo(102, 'png')];
    expect((await jobsOf(ids)).map((j) => j.state)).toEqual(['queued', 'queued']);

    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./worker-child.ts', import.meta.url)), h.dbUrl, join(h.dataDir, 'images'), '2'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the child never froze; stdout ${out} stderr ${err}`)), 60_000);
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (/frozen \d+/.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the child exited (${code}) before freezing: ${err}`));
      });
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const afterKill = await jobsOf(ids);
    expect(afterKill.map((j) => j.state).sort()).toEqual(['queued', 'running']);
    const killedJob = afterKill.find((j) => j.state === 'running')!;
    const killedImage = Number((killedJob.payload as { imageId: number }).imageId);
    const [half] = await h.db.select().from(s.images).where(eq(s.images.id, killedImage));
    expect(half!.processed).toBe(false);

    // A fresh worker does not touch a job whose lock is still fresh…
    expect(await h.worker().drain()).toBe(1);
    expect((await jobsOf(ids)).map((j) => j.state).sort()).toEqual(['done', 'running']);
    // …and takes it once the lock is stale.
    await ageLocks();
    expect(await h.worker().drain()).toBe(1);
    const done = await jobsOf(ids);
    expect(done.map((j) => j.state)).toEqual(['done', 'done']);
    expect(done.find((j) => j.id === killedJob.id)!.attempts).toBe(2);
    // The app's caches hear of the workers' writes a moment after their commits.
    await recordChangeFeedOf(h.db).sync();

    for (const id of ids) {
      const { image, files } = await imageState(id);
      expect(image.processed).toBe(true);
      expect(image.thumbnails_generated).toBe(true);
      expect(image.intensities).not.toBeNull();
      for (const [name, status] of files) expect(status, name).toBe(200);
    }
  }, 120_000);

  it('processing again from any point converges on the same files and row', async () => {
    const demo = await generateDemoImage(103, 'jpeg');
    const withExif = await sharp(demo.bytes).withMetadata({ exif: { IFD0: { Copyright: 'someone' } } }).jpeg({ quality: 90 }).toBuffer();
    const res = await h.submit(key, { url: h.serve('/restart/exif.jpg', { body: withExif }), image: { tag_input: 'safe, solo, pony' } });
    const id: number = res.body.image.id;
    await h.drain();
    const first = await imageState(id);
    const [row] = await h.db.select().from(s.images).where(eq(s.images.id, id));

    // Already processed: nothing to do.
    expect(await processStoredImage({ db: h.db, fileStore: h.store }, id)).toBe('already-processed');

    // As if the row update never happened although every file (the stripped original too) was written.
    await h.db.update(s.images).set({ processed: false, thumbnailsGenerated: false }).where(eq(s.images.id, id));
    await h.db.delete(s.imageIntensities).where(eq(s.imageIntensities.imageId, id));
    const thumb = pathFor(row!.createdAt, id, 'thumb', 'jpg');
    await h.store.delete(thumb);
    expect(await processStoredImage({ db: h.db, fileStore: h.store }, id)).toBe('processed');
    // the image read above is cached: wait until the app has heard of these writes
    await recordChangeFeedOf(h.db).sync();
    const second = await imageState(id);
    expect(second.image).toEqual({ ...first.image, updated_at: second.image.updated_at });
    expect(second.files).toEqual(first.files);
    expect(second.image.sha512_hash).not.toBe(second.image.orig_sha512_hash);
  });

  it('a job for an image that no longer exists completes without doing anything', async () => {
    const png = await sharp({ create: { width: 10, height: 10, channels: 3, background: '#abcdef' } }).png().toBuffer();
    const res = await h.submit(key, { url: h.serve('/gone.png', { body: png }), image: { tag_input: 'safe, solo, pony' } });
    const id = res.body.image.id;
    await h.db.delete(s.images).where(eq(s.images.id, id));
    expect(await h.drain()).toBe(1);
    expect((await jobsOf([id])).map((j) => [j.state, j.lastError])).toEqual([['done', null]]);
  });

  it('a job whose original is missing is retried, then parked with the reason', async () => {
    const png = await sharp({ create: { width: 12, height: 10, channels: 3, background: '#fedcba' } }).png().toBuffer();
    const res = await h.submit(key, { url: h.serve('/missing.png', { body: png }), image: { tag_input: 'safe, solo, pony' } });
    const id = res.body.image.id;
    const [row] = await h.db.select().from(s.images).where(eq(s.images.id, id));
    await h.store.delete(row!.storageKey!);
    await h.db.execute(sql`update jobs set max_attempts = 2 where payload->>'imageId' = ${String(id)}`);
    for (let attempt = 0; attempt < 2; attempt++) {
      await h.db.execute(sql`update jobs set run_at = now() where payload->>'imageId' = ${String(id)}`);
      await h.drain();
    }
    const [job] = await jobsOf([id]);
    expect(job!.state).toBe('parked');
    expect(job!.lastError).toMatch(/original of image \d+ is missing/);
  });
});
