/**
 * Two processes, one bucket: an image submitted to one app (with its own S3 client) is processed
 * by the service running as another process, on another DATA_DIR, with STORAGE_URL on the same
 * real S3-compatible server (S3Proxy, test/support/s3-server.ts), which then serves the original
 * and every representation with ranges and validators; no image file lands on either local disk.
 * This is the issue of files living on the disk of the process that received them.
 */
import { readdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { S3Storage, s3ClientFor } from '../../src/media/storage-s3.js';
import { startService, type Service } from '../ops/service-process.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { waitUntil } from '../support/wait.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

let server: S3TestServer;
let h: UploadHarness;
let service: Service | undefined;
let serviceDir: string;
let receiving: S3Storage;

beforeAll(async () => {
  server = await startS3Server();
  const settings = server.settings('board');
  receiving = new S3Storage(s3ClientFor(settings), settings.bucket, settings.prefix);
  h = await startUploadHarness({ storage: receiving });
  serviceDir = mkdtempSync(join(tmpdir(), 'tagwise-s3-service-'));
});

afterAll(async () => {
  if (service) {
    service.child.kill('SIGTERM');
    await service.exited;
  }
  await h?.close();
  receiving?.client.destroy();
  await server?.stop();
  if (serviceDir) rmSync(serviceDir, { recursive: true, force: true });
});

/** Image files (not the database's or the index's) under a directory. */
function imageFilesUnder(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.(png|jpe?g|gif|webm|mp4|svg)$/.test(f));
}

/** The object key of a file URL's path (`/img/view/Y/M/D/ID.ext` is `Y/M/D/ID/full.ext`). */
const keyOf = (path: string) => path.replace(/^\/img\/view\/(\d+\/\d+\/\d+)\/(\d+)[^/]*\.(\w+)$/, '$1/$2/full.$3').replace(/^\/img\//, '');

describe('media in S3 shared by every process', () => {
  it('another process processes an upload it never saw and serves every file of it', async () => {
    const demo = await generateDemoImage(11, 'png');
    const res = await h.submit(h.uploader.key, { url: h.serve('/shared.png', { body: demo.bytes }), image: { tag_input: 'safe, solo, pony' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.image.id as number;

    service = await startService(serviceDir, { DATABASE_URL: h.dbUrl, DEMO_DATA: 'false', IMAGE_CACHE_WARM: 'off', RATE_LIMITS: 'off', ...server.env('board') });
    await service.waitFor('listening');
    await waitUntil(
      () => `the image processed by the other process:\n${service!.output().slice(-2000)}`,
      async () => (await h.db.select({ done: s.images.thumbnailsGenerated }).from(s.images).where(eq(s.images.id, id)))[0]?.done === true,
      90_000,
    );

    const image = (await (await fetch(`${service.base}/api/v1/json/images/${id}`)).json()) as { image: { representations: Record<string, string>; view_url: string } };
    const paths = [image.image.view_url, ...Object.values(image.image.representations)].map((u) => new URL(u).pathname);
    expect(paths.length).toBeGreaterThan(3);
    for (const path of paths) {
      const got = await fetch(`${service.base}${path}`);
      expect(got.status, path).toBe(200);
      expect((await got.arrayBuffer()).byteLength, path).toBeGreaterThan(0);
    }

    const full = new URL(image.image.view_url).pathname;
    const whole = Buffer.from(await (await fetch(`${service.base}${full}`)).arrayBuffer());
    expect(whole.length).toBeGreaterThan(0);
    const ranged = await fetch(`${service.base}${full}`, { headers: { Range: 'bytes=1-3' } });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 1-3/${whole.length}`);
    expect(Buffer.from(await ranged.arrayBuffer()).equals(whole.subarray(1, 4))).toBe(true);
    const etag = ranged.headers.get('etag')!;
    expect((await fetch(`${service.base}${full}`, { headers: { 'If-None-Match': etag } })).status).toBe(304);
    expect((await fetch(`${service.base}${full}`, { headers: { Range: `bytes=${whole.length}-` } })).status).toBe(416);
    // The receiving app serves them too, from the same objects.
    expect((await h.get(paths.at(-1)!)).status).toBe(200);

    expect(imageFilesUnder(h.dataDir)).toEqual([]);
    expect(imageFilesUnder(serviceDir)).toEqual([]);
    const stored = imageFilesUnder(join(server.dataDir, server.bucket, 'board', 'images'));
    expect(stored.sort(), JSON.stringify(image.image.representations)).toEqual([...new Set(paths.map(keyOf))].sort());
  });
});
