/**
 * POST /search/reverse over real HTTP: finding a processed image from a resized copy served by the
 * https test server, not finding unrelated ones, every way of passing the file, `limit` and
 * `distance` as the reference reads them, and the empty answers instead of errors.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { DEFAULT_DISTANCE, parseDistance, parseLimit } from '../../src/contexts/images/reverse-search.js';
import { computeIntensities } from '../../src/media/intensities.js';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { insertImage } from '../http/harness.js';
import { assertResource } from '../support/resources.js';
import { IMAGE } from '../support/spec-shapes.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

let h: UploadHarness;
const ids: Record<string, number> = {};
const originals: Record<string, Buffer> = {};

const EMPTY = { images: [], interactions: [], total: 0 };

async function reverse(query: string, init: RequestInit = {}) {
  return h.api(`/search/reverse${query}`, { method: 'POST', ...init });
}

/** Bring the engine up to date with the database (after jobs or inserts). */
const sync = () => h.sync();

beforeAll(async () => {
  h = await startUploadHarness({ search: true });
  const { key } = h.uploader;
  for (const [label, seed, kind] of [['png', 301, 'png'], ['jpeg', 302, 'jpeg'], ['gif', 303, 'gif'], ['svg', 304, 'svg']] as const) {
    const demo = await generateDemoImage(seed, kind);
    originals[label] = demo.bytes;
    const res = await h.submit(key, { url: h.serve(`/board/${demo.name}`, { body: demo.bytes }), image: { tag_input: 'safe, solo, pony' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    ids[label] = res.body.image.id;
  }
  await h.drain();
  await sync();
});

afterAll(async () => {
  await h?.close();
});

describe('POST /search/reverse', () => {
  it('finds an image from a resized copy (query url), and nothing for an unrelated picture', async () => {
    const half = await sharp(originals.png!).resize({ width: Math.round((await sharp(originals.png!).metadata()).width! / 2) }).png().toBuffer();
    const res = await reverse(`?url=${encodeURIComponent(h.serve('/copy-half.png', { body: half }))}`);
    expect(res.status).toBe(200);
    expect(res.body.interactions).toEqual([]);
    expect(res.body.images.map((i: { id: number }) => i.id)).toEqual([ids.png]);
    expect(res.body.total).toBe(1);
    for (const image of res.body.images) assertResource(image, IMAGE);

    const asJpeg = await sharp(originals.png!).resize({ width: 300 }).jpeg({ quality: 80 }).toBuffer();
    const res2 = await reverse(`?url=${encodeURIComponent(h.serve('/copy.jpg', { body: asJpeg }))}&distance=0.25`);
    expect(res2.body.images[0]?.id).toBe(ids.png);

    const unrelated = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#ff00ff' } }).png().toBuffer();
    const res3 = await reverse(`?url=${encodeURIComponent(h.serve('/unrelated.png', { body: unrelated }))}`);
    expect(res3.body).toEqual(EMPTY);
  });

  it('finds animated GIFs by their middle frame and SVGs by their rendering', async () => {
    for (const label of ['gif', 'svg', 'jpeg'] as const) {
      const res = await reverse(`?url=${encodeURIComponent(h.serve(`/same-${label}`, { body: originals[label]! }))}&distance=0`);
      expect(res.body.images.map((i: { id: number }) => i.id), label).toEqual([ids[label]]);
    }
  });

  it('takes the url from a JSON or form body, and the file from multipart image or image[image]', async () => {
    const url = h.serve('/body-copy.png', { body: originals.png! });
    const json = await reverse('', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, distance: 0.1 }) });
    expect(json.body.images[0]?.id).toBe(ids.png);
    const form = await reverse('', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ url, distance: '0.1' }).toString() });
    expect(form.body.images[0]?.id).toBe(ids.png);
    for (const field of ['image', 'image[image]']) {
      const data = new FormData();
      data.append(field, new Blob([originals.jpeg!], { type: 'image/jpeg' }), 'upload.jpg');
      data.append('distance', '0.05');
      const res = await reverse('', { body: data });
      expect(res.body.images.map((i: { id: number }) => i.id), field).toEqual([ids.jpeg]);
      expect(res.body.total).toBe(1);
    }
  });

  it('answers the empty result for a missing, unreachable, unsafe or unanalysable file, making no unsafe request', async () => {
    expect((await reverse('')).body).toEqual(EMPTY);
    expect((await reverse('?url=')).body).toEqual(EMPTY);
    const before = h.requested.length;
    const port = h.files.hostPort.split(':')[1];
    for (const url of [
      h.serve('/insecure.png', { body: originals.png! }).replace('https:', 'http:'),
      'https://10.1.2.3/a.png',
      'https://169.254.169.254/latest/meta-data',
      `https://localhost:${port}/board/x.png`,
      'not a url',
    ]) {
      const res = await reverse(`?url=${encodeURIComponent(url)}`);
      expect(res.status, url).toBe(200);
      expect(res.body, url).toEqual(EMPTY);
    }
    expect(h.requested.length).toBe(before);
    const redirect = h.serve('/redirect-private', { status: 302, headers: { location: 'https://192.168.0.1/a.png' } });
    expect((await reverse(`?url=${encodeURIComponent(redirect)}`)).body).toEqual(EMPTY);
    expect((await reverse(`?url=${encodeURIComponent(`${h.files.origin}/missing.png`)}`)).body).toEqual(EMPTY);
    const text = h.serve('/text.png', { body: 'not an image at all' });
    expect((await reverse(`?url=${encodeURIComponent(text)}`)).body).toEqual(EMPTY);
    const malformed = await reverse('', { headers: { 'content-type': 'application/json' }, body: '{"url": ' });
    expect(malformed).toMatchObject({ status: 200, body: EMPTY });
  });

  it('is POST only: GET is 404', async () => {
    const res = await h.api(`/search/reverse?url=${encodeURIComponent(h.serve('/get.png', { body: originals.png! }))}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });
});

describe('limit and distance', () => {
  let pixel: Buffer;
  let near: number[];

  beforeAll(async () => {
    // The reference's fixture: 1×1 images, whose intensities are the pixel's luma in every corner.
    pixel = await sharp(Buffer.from([40, 60, 50]), { raw: { width: 1, height: 1, channels: 3 } }).png().toBuffer();
    const base = await computeIntensities(pixel);
    expect(base.nw).toBe(base.se);
    near = [];
    for (const delta of [0, 0.1, 0.2, 10]) {
      const image = await insertImage(h.db, { values: { imageWidth: 1, imageHeight: 1, imageAspectRatio: 1, imageOrigSha512Hash: `px${delta}` } });
      await h.db.insert(s.imageIntensities).values({ imageId: image.id, nw: base.nw + delta, ne: base.ne + delta, sw: base.sw + delta, se: base.se + delta });
      near.push(image.id);
    }
    await sync();
  });

  const search = (params: string) => reverse(`?url=${encodeURIComponent(h.serve('/pixel.png', { body: pixel }))}${params}`);
  const found = (res: { body: { images: Array<{ id: number }> } }) => res.body.images.map((i) => i.id);

  it('matches within 3·distance per corner, closest first; +10 misses at the default distance', async () => {
    const res = await search('');
    expect(found(res)).toEqual(near.slice(0, 3));
    expect(res.body.total).toBe(3);
    expect(found(await search('&distance=0'))).toEqual(near.slice(0, 1));
    expect(found(await search('&distance=.05'))).toEqual(near.slice(0, 2));
    // "abc" and negative values read as 0; values above 1 are clamped to 1.
    expect(found(await search('&distance=abc'))).toEqual(near.slice(0, 1));
    expect(found(await search('&distance=-0.5'))).toEqual(near.slice(0, 1));
    // At 1 the perceptual threshold (40 of 64 bits) admits nearly anything, as the reference's 1
    // does: the intensity matches are all there, after the perceptual ones.
    const lenient = found(await search('&distance=7'));
    expect(lenient.slice(-3)).toEqual(near.slice(0, 3));
    expect(lenient).not.toContain(near[3]);
  });

  it('limit caps the entries and the total; an invalid limit answers nothing', async () => {
    const one = await search('&limit=1');
    expect(found(one)).toEqual(near.slice(0, 1));
    expect(one.body.total).toBe(1);
    const two = await search('&limit=2');
    expect(found(two)).toEqual(near.slice(0, 2));
    expect(two.body.total).toBe(2);
    expect((await search('&limit=50')).body.total).toBe(3);
    for (const bad of ['999', '0', '-1', 'abc', '2x', '1.5']) {
      expect((await search(`&limit=${bad}`)).body, bad).toEqual(EMPTY);
    }
  });

  it('parses parameters as the reference does', () => {
    expect(parseDistance(undefined)).toBe(DEFAULT_DISTANCE);
    expect(parseDistance('')).toBe(DEFAULT_DISTANCE);
    expect(parseDistance('.3')).toBe(0.3);
    expect(parseDistance('0.5xyz')).toBe(0.5);
    expect(parseDistance('abc')).toBe(0);
    expect(parseDistance('-0.5')).toBe(0);
    expect(parseDistance('1e-1')).toBe(0.1);
    expect(parseDistance('2')).toBe(1);
    expect(parseDistance(0.4)).toBe(0.4);
    expect(parseLimit(undefined)).toBeUndefined();
    expect(parseLimit('')).toBeUndefined();
    expect(parseLimit('10')).toBe(10);
    expect(parseLimit('+7')).toBe(7);
    expect(parseLimit(5)).toBe(5);
    expect(parseLimit('50')).toBe(50);
    for (const bad of ['51', '999', '0', '-3', ' 5', '5 ', '2abc', 'abc', '1.0']) expect(parseLimit(bad), bad).toBeNull();
  });
});
