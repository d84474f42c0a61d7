/**
 * A full disk, for real: the image storage is a 2 MiB tmpfs mounted for this file (the tests run
 * as root, as CI does), filled to the last byte. An upload is then answered 507 Insufficient
 * Storage with the JSON error and Retry-After, leaves no image row, tag count or job behind,
 * `/readyz` answers 200 `"status":"degraded","storage":"full"` (reads are still served),
 * `/metrics` counts the refusal and shows the gauge; once space is back the next upload is
 * stored and the flag clears.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

let h: UploadHarness;
let mount: string;

/** Fills the file system at `dir` with one file until the kernel says there is no space left. */
function fill(dir: string): string {
  const filler = join(dir, 'filler');
  const chunk = Buffer.alloc(64 * 1024, 1);
  writeFileSync(filler, '');
  try {
    for (;;) writeFileSync(filler, chunk, { flag: 'a' });
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ENOSPC');
  }
  // The last partial chunk may have left a few bytes: fill those too.
  try {
    for (;;) writeFileSync(filler, Buffer.alloc(1), { flag: 'a' });
  } catch {}
  return filler;
}

beforeAll(async () => {
  mount = mkdtempSync(join(tmpdir(), 'tagwise-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', mount]);
  h = await startUploadHarness({ storage: new DirectoryStorage(mount), search: true });
});

afterAll(async () => {
  await h?.close();
  if (mount) {
    execFileSync('umount', [mount]);
    rmSync(mount, { recursive: true, force: true });
  }
});

async function rows() {
  const [images] = await h.db.select({ n: count() }).from(s.images);
  const [jobs] = await h.db.select({ n: count() }).from(s.jobs);
  const [taggings] = await h.db.select({ n: count() }).from(s.imageTaggings);
  return { images: images!.n, jobs: jobs!.n, taggings: taggings!.n };
}

const metric = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1]);

describe('uploads onto a full disk', () => {
  it('are answered 507 with nothing kept, readyz and metrics say so, and the next upload after space is back is stored', async () => {
    const demo = await generateDemoImage(5, 'png');
    const before = await rows();
    const filler = fill(mount);

    const refused = await h.submit(h.uploader.key, { url: h.serve('/full.png', { body: demo.bytes }), image: { tag_input: 'safe, solo, pony' } });
    expect(refused.status).toBe(507);
    expect(refused.body).toEqual({ error: expect.stringMatching(/storage/i) });
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await rows()).toEqual(before);

    await h.sync();
    const ready = await fetch(`${h.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'degraded', storage: 'full' });
    const metrics = await (await fetch(`${h.url}/metrics`)).text();
    expect(metric(metrics, 'media_storage_full')).toBe(1);
    expect(metric(metrics, 'media_storage_full_refusals_total')).toBe(1);

    rmSync(filler);
    const stored = await h.submit(h.uploader.key, { url: h.serve('/room.png', { body: demo.bytes }), image: { tag_input: 'safe, solo, pony' } });
    expect(stored.status, JSON.stringify(stored.body)).toBe(200);
    const after = await rows();
    expect(after.images).toBe(before.images + 1);
    expect(await (await fetch(`${h.url}/readyz`)).json()).toMatchObject({ storage: 'up' });
    expect(metric(await (await fetch(`${h.url}/metrics`)).text(), 'media_storage_full')).toBe(0);
  });
});
