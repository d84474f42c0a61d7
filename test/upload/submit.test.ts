/**
 * Submitting images of every accepted format over real HTTP, fetched from a local https server,
 * then processed by the job worker: every representation URL serves a file of the right size, the
 * hashes, sizes and intensities are stored, and the image reaches the search outbox and document.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { and, eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { ffmpegAvailable } from '../../src/media/ffmpeg.js';
import { computeIntensities } from '../../src/media/intensities.js';
import { generateDemoImage, type DemoKind } from '../../src/media/demo-images.js';
import { boxesSmallerThan, fitInside, REPRESENTATION_BOXES } from '../../src/media/representations.js';
import { loadImageDocuments } from '../../src/contexts/search/documents/images-documents.js';
import { insertTag } from '../http/harness.js';
import { assertResource } from '../support/resources.js';
import { IMAGE } from '../support/spec-shapes.js';
import { CDN_URL, startUploadHarness, userWithKey, type UploadHarness } from './harness.js';

const run = promisify(execFile);
const sha512 = (b: Uint8Array) => createHash('sha512').update(b).digest('hex');

let h: UploadHarness;
let key: string;
let userId: number;
let userName: string;
const hasFfmpeg = await ffmpegAvailable();

beforeAll(async () => {
  h = await startUploadHarness();
  ({ key, user: { id: userId, name: userName } } = h.uploader);
});

afterAll(async () => {
  await h?.close();
});

/** A small WebM made by ffmpeg (odd size, 2 s at 10 fps). */
async function makeWebm(width: number, height: number): Promise<Buffer> {
  const dir = await mkdtemp(join(tmpdir(), 'tagwise-webm-'));
  try {
    const out = join(dir, 'clip.webm');
    await run('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc=size=${width}x${height}:rate=10`, '-t', '2', '-c:v', 'libvpx', '-b:v', '400k', out]);
    return await readFile(out);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Width and height of served bytes: sharp for pictures (a GIF's page height), ffprobe for videos. */
async function dimensionsOf(bytes: Buffer, contentType: string): Promise<{ width: number; height: number }> {
  if (contentType.startsWith('video/')) {
    const dir = await mkdtemp(join(tmpdir(), 'tagwise-probe-'));
    try {
      const file = join(dir, 'v');
      await (await import('node:fs/promises')).writeFile(file, bytes);
      const { stdout } = await run('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', file]);
      const [w, hgt] = stdout.trim().split(',').map(Number);
      return { width: w!, height: hgt! };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  return { width: meta.width!, height: meta.pageHeight ?? meta.height! };
}

const CONTENT_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml', webm: 'video/webm', mp4: 'video/mp4' };

interface Case {
  label: string;
  make: () => Promise<{ bytes: Buffer; name: string }>;
  format: string;
  mime: string;
  /** Extension of the representation files. */
  repExt: string;
  animated: boolean;
  needsFfmpeg?: boolean;
}

const demo = (seed: number, kind: DemoKind) => async () => {
  const d = await generateDemoImage(seed, kind);
  return { bytes: d.bytes, name: d.name };
};

const cases: Case[] = [
  { label: 'PNG', make: demo(11, 'png'), format: 'png', mime: 'image/png', repExt: 'png', animated: false },
  { label: 'JPEG', make: demo(12, 'jpeg'), format: 'jpg', mime: 'image/jpeg', repExt: 'jpg', animated: false },
  { label: 'animated GIF', make: demo(13, 'gif'), format: 'gif', mime: 'image/gif', repExt: 'gif', animated: true },
  { label: 'SVG', make: demo(14, 'svg'), format: 'svg', mime: 'image/svg+xml', repExt: 'png', animated: false },
  { label: 'WebM', make: async () => ({ bytes: await makeWebm(321, 241), name: 'clip.webm' }), format: 'webm', mime: 'video/webm', repExt: 'webm', animated: true, needsFfmpeg: true },
];

describe('POST /images, then processing', () => {
  for (const c of cases) {
    const skip = c.needsFfmpeg === true && !hasFfmpeg;
    const title = skip ? `${c.label}: skipped, ffmpeg/ffprobe are not installed (apt-get install ffmpeg)` : `${c.label}: submitted, processed, every representation served at its size`;
    it.skipIf(skip)(title, async () => {
      const file = await c.make();
      const url = h.serve(`/files/${c.label.replace(/\W/g, '')}/${file.name}`, { body: file.bytes, headers: { 'content-type': 'application/octet-stream' } });
      const res = await h.submit(key, {
        url,
        image: { description: `A ${c.label}`, tag_input: 'Safe, solo, pony, artist:Some_Artist', source_url: 'https://example.com/art/1' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const created = res.body.image;
      assertResource(created, IMAGE);
      expect(res.body.interactions).toEqual([]);
      expect(created).toMatchObject({
        processed: false,
        thumbnails_generated: false,
        format: c.format,
        mime_type: c.mime,
        name: file.name,
        orig_sha512_hash: sha512(file.bytes),
        orig_size: file.bytes.length,
        description: `A ${c.label}`,
        source_url: 'https://example.com/art/1',
        source_urls: ['https://example.com/art/1'],
        uploader: userName,
        uploader_id: userId,
        animated: c.animated,
        intensities: null,
        spoilered: false,
        hidden_from_users: false,
      });
      expect([...created.tags].sort()).toEqual(['artist:some_artist', 'pony', 'safe', 'solo']);
      const id: number = created.id;

      // Stored original and the job.
      const [row] = await h.db.select().from(s.images).where(eq(s.images.id, id));
      expect(row!.storageKey).toMatch(new RegExp(`^\\d{4}/\\d{1,2}/\\d{1,2}/${id}/full\\.${c.format}$`));
      expect((await h.store.get(row!.storageKey!))?.equals(file.bytes)).toBe(true);
      expect(row!.approved).toBe(true);
      expect(row!.fingerprint).toMatch(/^a\d+$/);
      expect(row!.ip).toBe('127.0.0.1');
      const jobs = await h.db.select().from(s.jobs).where(sql`${s.jobs.payload}->>'imageId' = ${String(id)}`);
      expect(jobs.map((j) => [j.kind, j.state])).toEqual([['process-image', 'queued']]);

      expect(await h.drain()).toBeGreaterThanOrEqual(1);
      const [job] = await h.db.select().from(s.jobs).where(eq(s.jobs.id, jobs[0]!.id));
      expect(job!.state, job!.lastError ?? '').toBe('done');

      const shown = await h.api(`/images/${id}`);
      expect(shown.status).toBe(200);
      const image = shown.body.image;
      assertResource(image, IMAGE);
      expect(image.processed).toBe(true);
      expect(image.thumbnails_generated).toBe(true);
      expect(image.orig_sha512_hash).toBe(sha512(file.bytes));
      const expected = await computeIntensities(file.bytes);
      expect(image.intensities).toEqual(expected);
      const [stored] = await h.db.select().from(s.imageIntensities).where(eq(s.imageIntensities.imageId, id));
      expect(stored).toMatchObject(expected);

      // The full file: what sha512_hash and size describe (an SVG's `full` view is its PNG rendering).
      const download = await h.get(image.representations.full.replace('/img/view/', '/img/download/').replace(/\.png$/, `.${c.format}`));
      expect(download.status).toBe(200);
      const fullBytes = Buffer.from(await download.arrayBuffer());
      expect(sha512(fullBytes)).toBe(image.sha512_hash);
      expect(fullBytes.length).toBe(image.size);
      expect(image.aspect_ratio).toBeCloseTo(image.width / image.height, 10);

      // Every representation, at the size of its box (or the original's when the box is larger).
      const { width, height } = image;
      const larger = new Set(boxesSmallerThan(width, height).map((b) => b.name));
      for (const box of REPRESENTATION_BOXES) {
        const repUrl: string = image.representations[box.name];
        expect(repUrl.startsWith(`${CDN_URL}/img/`)).toBe(true);
        expect(repUrl.endsWith(`/${larger.has(box.name) ? box.name : 'full'}.${c.repExt}`), `${box.name}: ${repUrl}`).toBe(true);
        const got = await h.get(repUrl);
        expect(got.status, `${box.name} ${repUrl}`).toBe(200);
        expect(got.headers.get('content-type')).toBe(CONTENT_TYPES[c.repExt]);
        const dims = await dimensionsOf(Buffer.from(await got.arrayBuffer()), CONTENT_TYPES[c.repExt]!);
        expect(dims, box.name).toEqual(larger.has(box.name) ? fitInside(width, height, box.width, box.height) : { width, height });
      }
      for (const [name, url2] of [['full', image.representations.full], ['view_url', image.view_url]] as const) {
        const got = await h.get(url2);
        expect(got.status, name).toBe(200);
        expect(await dimensionsOf(Buffer.from(await got.arrayBuffer()), got.headers.get('content-type')!)).toEqual({ width, height });
      }
      if (c.format === 'gif') {
        expect(image.representations.webm).toMatch(/\/full\.webm$/);
        expect(image.representations.mp4).toMatch(/\/full\.mp4$/);
        if (hasFfmpeg) {
          for (const v of [image.representations.webm, image.representations.mp4]) {
            const got = await h.get(v);
            expect(got.status, v).toBe(200);
            const dims = await dimensionsOf(Buffer.from(await got.arrayBuffer()), got.headers.get('content-type')!);
            // H.264 needs even sizes: the mp4 is padded by at most one pixel.
            expect(dims.width - width).toBeGreaterThanOrEqual(0);
            expect(dims.width - width).toBeLessThanOrEqual(1);
            expect(dims.height - height).toBeLessThanOrEqual(1);
          }
        }
      }
      const rendered = await h.get(image.representations.full.replace(/\/view\/(\d+\/\d+\/\d+)\/(\d+)\.\w+$/, '/$1/$2/rendered.png'));
      expect(rendered.status).toBe(c.format === 'png' || c.format === 'jpg' ? 404 : 200);
      if (c.format === 'webm') {
        const base = image.representations.full.replace(/\/view\/(\d+\/\d+\/\d+)\/(\d+)\.\w+$/, '/$1/$2');
        expect((await h.get(`${base}/full.mp4`)).status).toBe(200);
        for (const name of larger) {
          expect((await h.get(`${base}/${name}.mp4`)).status, `${name}.mp4`).toBe(200);
          if (['thumb_tiny', 'thumb_small', 'thumb'].includes(name)) expect((await h.get(`${base}/${name}.gif`)).status, `${name}.gif`).toBe(200);
        }
      }

      // The search index: outbox rows for the image, and its document carries the processed state.
      const outbox = await h.db.select().from(s.searchOutbox).where(and(eq(s.searchOutbox.index, 'images'), eq(s.searchOutbox.recordId, id)));
      expect(outbox.length).toBeGreaterThanOrEqual(2);
      const [doc] = await loadImageDocuments(h.db, [id]);
      expect(doc).toMatchObject({
        id,
        processed: true,
        thumbnails_generated: true,
        approved: true,
        sha512_hash: image.sha512_hash,
        orig_sha512_hash: sha512(file.bytes),
        width,
        height,
        mime_type: c.mime,
        uploader_id: userId,
        tag_count: 4,
      });
      expect((doc!.tag_ids as number[]).slice().sort()).toEqual([...image.tag_ids].sort());
    }, 180_000);
  }

  it('strips metadata from a JPEG: the stored full file differs from the upload, sha512_hash follows it', async () => {
    const withExif = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#884422' } })
      .withMetadata({ exif: { IFD0: { Copyright: 'someone', ImageDescription: 'secret location' } } })
      .jpeg()
      .toBuffer();
    const url = h.serve('/exif.jpg', { body: withExif });
    const res = await h.submit(key, { url, image: { tag_input: 'safe, solo, pony' } });
    expect(res.status).toBe(200);
    await h.drain();
    const { body } = await h.api(`/images/${res.body.image.id}`);
    expect(body.image.orig_sha512_hash).toBe(sha512(withExif));
    expect(body.image.sha512_hash).not.toBe(body.image.orig_sha512_hash);
    const full = Buffer.from(await (await h.get(body.image.representations.full)).arrayBuffer());
    expect(sha512(full)).toBe(body.image.sha512_hash);
    expect(full.includes(Buffer.from('secret location'))).toBe(false);
    expect(withExif.includes(Buffer.from('secret location'))).toBe(true);
    expect(body.image.size).toBe(full.length);
    expect(body.image.orig_size).toBe(withExif.length);
  });

  it('approves uploads of verified users and staff, not of plain users; counts tags and uploads', async () => {
    const plain = await userWithKey(h.db, { verified: false, role: 'user' });
    const staff = await userWithKey(h.db, { verified: false, role: 'assistant' });
    const tagBefore = await h.db.select().from(s.tags).where(eq(s.tags.name, 'safe'));
    const results: Array<{ approved: boolean; imagesCount: number }> = [];
    for (const [i, who] of [plain, staff].entries()) {
      const png = await sharp({ create: { width: 60 + i, height: 40, channels: 3, background: '#123456' } }).png().toBuffer();
      const res = await h.submit(who.key, { url: h.serve(`/approval-${i}.png`, { body: png }), image: { tag_input: 'safe, solo, pony' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const [row] = await h.db.select().from(s.images).where(eq(s.images.id, res.body.image.id));
      const [u] = await h.db.select().from(s.users).where(eq(s.users.id, who.user.id));
      results.push({ approved: row!.approved, imagesCount: u!.imagesCount });
    }
    expect(results).toEqual([
      { approved: false, imagesCount: 0 },
      { approved: true, imagesCount: 1 },
    ]);
    const tagAfter = await h.db.select().from(s.tags).where(eq(s.tags.name, 'safe'));
    expect(tagAfter[0]!.imagesCount).toBe(tagBefore[0]!.imagesCount + 2);
  });

  it('resolves aliases and adds implied tags; sources and anonymous uploads', async () => {
    const target = await insertTag(h.db, 'pegasus');
    await insertTag(h.db, 'pegasus pony', { aliasedTagId: target.id });
    const wings = await insertTag(h.db, 'wings');
    await h.db.insert(s.tagImplications).values({ tagId: target.id, impliedTagId: wings.id });
    const png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#654321' } }).png().toBuffer();
    const res = await h.submit(key, {
      url: h.serve('/alias.png', { body: png }),
      image: {
        tag_input: 'Pegasus_Pony, safe',
        source_url: 'https://example.com/a',
        sources: { '0': { source: ' https://example.com/b ' }, '1': { source: '' }, '2': { source: 'https://example.com/a' } },
        anonymous: true,
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect([...res.body.image.tags].sort()).toEqual(['pegasus', 'safe', 'wings']);
    expect(res.body.image.source_urls).toEqual(['https://example.com/a', 'https://example.com/b']);
    expect(res.body.image.uploader).toBeNull();
    expect(res.body.image.uploader_id).toBeNull();
  });

  it('answers with the image seen through the current filter (spoilered)', async () => {
    const questionable = (await h.db.select().from(s.tags).where(eq(s.tags.name, 'questionable')))[0]!;
    await h.db.insert(s.filters).values({ name: 'Default', system: true, spoileredTagIds: [questionable.id] });
    const png = await sharp({ create: { width: 31, height: 20, channels: 3, background: '#222222' } }).png().toBuffer();
    const res = await h.submit(key, { url: h.serve('/spoiler.png', { body: png }), image: { tag_input: 'questionable, solo, pony' } });
    expect(res.status).toBe(200);
    expect(res.body.image.spoilered).toBe(true);
  });
});
