/**
 * Reverse search over real HTTP finds the copies reposts make that a plain DCT hash misses: a
 * mirror image, a quarter turn either way, 10 % cut off two adjacent sides (each corner), and a
 * low-detail picture (four flat quadrants) both as the identical file and at a quarter of its
 * size, first among pictures of the same layout in other colours. Unrelated pictures stay out.
 * A mirrored or turned submission is recorded as a near-duplicate of the original.
 */
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../src/db/schema/index.js';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

let h: UploadHarness;
let original: Buffer;
let originalId: number;
const quadrantIds = new Map<string, number>();

/** Four flat quadrants, each colour given, as a PNG. */
function quadrants(width: number, height: number, colours: string[]): Promise<Buffer> {
  const [w, hh] = [width / 2, height / 2];
  const rects = colours.map((c, k) => `<rect x="${(k % 2) * w}" y="${Math.floor(k / 2) * hh}" width="${w}" height="${hh}" fill="${c}"/>`);
  return sharp(Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${rects.join('')}</svg>`)).png().toBuffer();
}

const QUADRANTS = {
  // the same light-dark order in each, other colours
  large: { size: [1200, 900], colours: ['#c03030', '#30c030', '#3030c0', '#e0e030'] },
  similar: { size: [1200, 900], colours: ['#d04040', '#40b040', '#2020a0', '#f0f060'] },
  small: { size: [300, 225], colours: ['#208080', '#a0a0a0', '#602060', '#f0c0c0'] },
} as const;

async function reverse(file: Buffer) {
  const url = h.serve(`/q-${Math.random().toString(36).slice(2)}.png`, { body: file });
  const res = await h.api(`/search/reverse?url=${encodeURIComponent(url)}`, { method: 'POST' });
  expect(res.status).toBe(200);
  return (res.body.images as Array<{ id: number }>).map((i) => i.id);
}

async function submit(name: string, file: Buffer): Promise<number> {
  const res = await h.submit(h.uploader.key, { url: h.serve(`/${name}.png`, { body: file }), image: { tag_input: 'safe, solo, pony' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.image.id;
}

beforeAll(async () => {
  h = await startUploadHarness({ search: true });
  original = (await generateDemoImage(601, 'png')).bytes;
  originalId = await submit('original', original);
  for (const seed of [602, 603, 604]) await submit(`other-${seed}`, (await generateDemoImage(seed, 'png')).bytes);
  for (const [name, q] of Object.entries(QUADRANTS)) quadrantIds.set(name, await submit(name, await quadrants(q.size[0], q.size[1], [...q.colours])));
  await h.drain();
  await h.sync();
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe('copies turned, mirrored or cut', () => {
  it('finds a mirror image and quarter turns first', async () => {
    expect((await reverse(await sharp(original).flop().png().toBuffer()))[0]).toBe(originalId);
    expect((await reverse(await sharp(original).flip().png().toBuffer()))[0]).toBe(originalId);
    expect((await reverse(await sharp(original).rotate(90).png().toBuffer()))[0]).toBe(originalId);
    expect((await reverse(await sharp(original).rotate(270).png().toBuffer()))[0]).toBe(originalId);
    expect((await reverse(await sharp(original).rotate(90).flop().jpeg({ quality: 50 }).toBuffer()))[0]).toBe(originalId);
  });

  it('finds a copy with 10 % cut off two adjacent sides, whichever two', async () => {
    const { width, height } = await sharp(original).metadata();
    const [dx, dy] = [Math.round(width! * 0.1), Math.round(height! * 0.1)];
    for (const [left, top] of [[0, 0], [dx, 0], [0, dy], [dx, dy]] as const) {
      const cut = await sharp(original).extract({ left, top, width: width! - dx, height: height! - dy }).png().toBuffer();
      expect((await reverse(cut))[0], `cut at ${left},${top}`).toBe(originalId);
    }
  });

  it('finds nothing for an unrelated picture, mirrored or not', async () => {
    const unrelated = (await generateDemoImage(777, 'png')).bytes;
    for (const file of [unrelated, await sharp(unrelated).flop().png().toBuffer(), await sharp(unrelated).rotate(90).png().toBuffer()]) {
      expect(await reverse(file)).not.toContain(originalId);
    }
  });
});

describe('low-detail pictures', () => {
  it('finds the identical file of four flat quadrants first', async () => {
    for (const [name, q] of Object.entries(QUADRANTS)) {
      expect((await reverse(await quadrants(q.size[0], q.size[1], [...q.colours])))[0], name).toBe(quadrantIds.get(name));
    }
  });

  it('finds four flat quadrants at a quarter of the size, before the same layout in other colours', async () => {
    const q = QUADRANTS.large;
    const quarter = await sharp(await quadrants(q.size[0], q.size[1], [...q.colours])).resize(300, 225).png().toBuffer();
    const found = await reverse(quarter);
    expect(found[0]).toBe(quadrantIds.get('large'));
  });
});

describe('near-duplicates at submission', () => {
  it('reports a mirror image and a quarter turn of an older image, and not an unrelated picture', async () => {
    const copies = { mirrored: await sharp(original).flop().png().toBuffer(), turned: await sharp(original).rotate(90).png().toBuffer(), unrelated: (await generateDemoImage(778, 'png')).bytes };
    const ids = new Map<string, number>();
    for (const [name, file] of Object.entries(copies)) ids.set(name, await submit(`dup-${name}`, file));
    await h.drain();
    const reportsOf = async (id: number) => (await h.db.select().from(schema.duplicateReports).where(sql`${schema.duplicateReports.imageId} = ${id}`)).map((r) => [r.duplicateOfImageId, r.distance]);
    for (const name of ['mirrored', 'turned']) {
      const reports = await reportsOf(ids.get(name)!);
      expect(reports.map((r) => r[0]), name).toContain(originalId);
      expect(reports.find((r) => r[0] === originalId)![1], name).toBeLessThanOrEqual(5);
    }
    expect((await reportsOf(ids.get('unrelated')!)).map((r) => r[0])).not.toContain(originalId);
  });
});
