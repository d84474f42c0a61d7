/**
 * Reverse search by fingerprint over real HTTP, with the real indexer and embedded engine:
 * - every image the reference's intensity match finds is in the answer, after the closer
 *   fingerprint matches (the intensity matches computed here with our own SQL);
 * - the identical file comes first;
 * - the caller's filter is applied in the search: with more hidden near-copies than a page holds,
 *   the visible one is still found, hidden ones never appear or count, spoilered ones are flagged;
 * - a refused URL keeps the empty answer and says so in the `Warning` header;
 * - a near-duplicate submission succeeds and records a duplicate report, which the admin command
 *   lists and merges.
 */
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/admin.js';
import { openDatabase } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import { computeIntensities } from '../../src/media/intensities.js';
import { generateDemoImage } from '../../src/media/demo-images.js';
import { insertFilter, insertImage, insertTag } from '../http/harness.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

let h: UploadHarness;
let key: string;
let original: Buffer;
let originalId: number;
let fingerprint: { phash: string; chash: string };

const sync = () => h.sync();

async function reverse(file: Buffer, params = '') {
  const url = h.serve(`/q-${Math.random().toString(36).slice(2)}.png`, { body: file });
  return h.api(`/search/reverse?url=${encodeURIComponent(url)}${params}`, { method: 'POST' });
}
const idsOf = (res: { body: { images: Array<{ id: number }> } }) => res.body.images.map((i) => i.id);

/** A hash with the first `n` bits flipped. */
function flipped(hash: string, n: number): string {
  let x = BigInt(`0x${hash}`);
  for (let b = 0; b < n; b++) x ^= 1n << BigInt(63 - b);
  return x.toString(16).padStart(16, '0');
}

beforeAll(async () => {
  h = await startUploadHarness({ search: true });
  key = h.uploader.key;
  original = (await generateDemoImage(501, 'png')).bytes;
  const res = await h.submit(key, { url: h.serve('/original.png', { body: original }), image: { tag_input: 'safe, solo, pony' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  originalId = res.body.image.id;
  for (const seed of [502, 503, 504]) {
    const other = (await generateDemoImage(seed, 'jpeg')).bytes;
    expect((await h.submit(key, { url: h.serve(`/other-${seed}.jpg`, { body: other }), image: { tag_input: 'safe, solo, pony' } })).status).toBe(200);
  }
  await h.drain();
  await sync();
  const [row] = await h.db.select().from(s.imageFingerprints).where(sql`${s.imageFingerprints.imageId} = ${originalId}`);
  fingerprint = { phash: row!.phash, chash: row!.chash };
});

afterAll(async () => {
  await h?.close();
});

describe('compatibility with the reference', () => {
  /** The reference's intensity matches, by our own SQL (reference §7), closest first. */
  async function referenceMatches(file: Buffer, distance: number): Promise<number[]> {
    const i = await computeIntensities(file);
    const meta = await sharp(file).metadata();
    const ratio = meta.width! / meta.height!;
    const c = 3 * distance;
    const rows = await h.db.execute<{ id: number }>(sql`
      select x.image_id as id from image_intensities x join images m on m.id = x.image_id
      where abs(x.nw - ${i.nw}) <= ${c} and abs(x.ne - ${i.ne}) <= ${c} and abs(x.sw - ${i.sw}) <= ${c} and abs(x.se - ${i.se}) <= ${c}
        and abs(m.image_aspect_ratio - ${ratio}) <= ${distance}`);
    return rows.map((r) => Number(r.id));
  }

  it('finds every intensity match, after the fingerprint matches; the identical file first', async () => {
    // images that only the intensities find: corners as the query's, fingerprints far away
    const query = await sharp(original).resize({ width: 200 }).png().toBuffer();
    const i = await computeIntensities(query);
    const meta = await sharp(query).metadata();
    const intensityOnly: number[] = [];
    for (const delta of [0.05, 0.3]) {
      const image = await insertImage(h.db, { values: { imageAspectRatio: meta.width! / meta.height!, imageOrigSha512Hash: `only${delta}` } });
      await h.db.insert(s.imageIntensities).values({ imageId: image.id, nw: i.nw + delta, ne: i.ne + delta, sw: i.sw + delta, se: i.se + delta });
      await h.db.insert(s.imageFingerprints).values({ imageId: image.id, phash: flipped(fingerprint.phash, 40), chash: flipped(fingerprint.chash, 40), version: 1 });
      intensityOnly.push(image.id);
    }
    await sync();

    const meta0 = await sharp(original).metadata();
    const copies = {
      half: query,
      brighter: await sharp(original).linear(1.12, 0).png().toBuffer(),
      // 3 % of each border cut away
      trimmed: await sharp(original)
        .extract({ left: Math.round(meta0.width! * 0.03), top: Math.round(meta0.height! * 0.03), width: Math.round(meta0.width! * 0.94), height: Math.round(meta0.height! * 0.94) })
        .png()
        .toBuffer(),
      exact: original,
      unrelated: (await generateDemoImage(777, 'png')).bytes,
    };
    for (const [name, file] of Object.entries(copies)) {
      for (const distance of [0.1, 0.25, 0.6]) {
        const res = await reverse(file, `&distance=${distance}`);
        const found = idsOf(res);
        const reference = await referenceMatches(file, distance);
        expect(res.body.total, `${name} at ${distance}`).toBe(found.length);
        for (const id of reference) expect(found, `${name} at ${distance}: intensity match ${id}`).toContain(id);
        // intensity-only matches come after every image the fingerprints found
        const firstOnly = found.findIndex((id) => intensityOnly.includes(id));
        if (firstOnly >= 0) for (const id of found.slice(firstOnly)) expect(intensityOnly.concat(reference), name).toContain(id);
        if (name !== 'unrelated' && distance >= 0.25) expect(found[0], `${name} at ${distance}`).toBe(originalId);
      }
    }
    expect(idsOf(await reverse(copies.half))).toEqual(expect.arrayContaining(intensityOnly.slice(0, 1)));
  });
});

describe('the filter applies during the search', () => {
  it('never returns or counts hidden images, even more than a page of them, and flags spoilered ones', async () => {
    const hideme = await insertTag(h.db, 'hideme');
    const spoilme = await insertTag(h.db, 'spoilme');
    const filter = await insertFilter(h.db, { name: 'Hides copies', system: true, hiddenTagIds: [hideme.id], spoileredTagIds: [spoilme.id] });
    // 60 hidden images identical to the original by fingerprint: more than a page (50)
    for (let k = 0; k < 60; k++) {
      const image = await insertImage(h.db, { tags: [hideme], values: { imageOrigSha512Hash: `hidden${k}` } });
      await h.db.insert(s.imageFingerprints).values({ imageId: image.id, ...fingerprint, version: 1 });
    }
    const visible = await insertImage(h.db, { values: { imageOrigSha512Hash: 'visible-copy' } });
    await h.db.insert(s.imageFingerprints).values({ imageId: visible.id, phash: flipped(fingerprint.phash, 5), chash: flipped(fingerprint.chash, 5), version: 1 });
    const spoilered = await insertImage(h.db, { tags: [spoilme], values: { imageOrigSha512Hash: 'spoilered-copy' } });
    await h.db.insert(s.imageFingerprints).values({ imageId: spoilered.id, phash: flipped(fingerprint.phash, 7), chash: flipped(fingerprint.chash, 7), version: 1 });
    const merged = await insertImage(h.db, { values: { imageOrigSha512Hash: 'merged-copy', hiddenFromUsers: true, duplicateId: originalId } });
    await h.db.insert(s.imageFingerprints).values({ imageId: merged.id, ...fingerprint, version: 1 });
    await sync();

    const res = await reverse(original, `&filter_id=${filter.id}`);
    const found = idsOf(res);
    expect(found.slice(0, 3)).toEqual([originalId, visible.id, spoilered.id]);
    expect(found).not.toContain(merged.id);
    expect(res.body.total).toBe(found.length);
    expect(res.body.total).toBeLessThan(10);
    expect(res.body.images.find((i: { id: number }) => i.id === spoilered.id).spoilered).toBe(true);
    expect(res.body.images.find((i: { id: number }) => i.id === visible.id).spoilered).toBe(false);

    const two = await reverse(original, `&filter_id=${filter.id}&limit=2`);
    expect(idsOf(two)).toEqual([originalId, visible.id]);
    expect(two.body.total).toBe(2);

    // without that filter (the Default one hides nothing here) the copies fill the page
    const unfiltered = await reverse(original);
    expect(unfiltered.body.images).toHaveLength(50);
    expect(idsOf(unfiltered)).not.toContain(merged.id);
  });
});

describe('merged and deleted images', () => {
  it('are never listed nor counted, even before the index hears that they were hidden', async () => {
    const copy = await insertImage(h.db, { values: { imageOrigSha512Hash: 'soon-deleted-copy', description: 'SECRET' } });
    await h.db.insert(s.imageFingerprints).values({ imageId: copy.id, ...fingerprint, version: 1 });
    await sync();
    // through the filter of the test above, which hides its sixty copies: the page has room
    const [hides] = await h.db.select().from(s.filters).where(sql`${s.filters.name} = 'Hides copies'`);
    const reverseFiltered = () => reverse(original, `&filter_id=${hides!.id}`);
    const before = await reverseFiltered();
    expect(idsOf(before)).toContain(copy.id);
    // deleted in PostgreSQL; the index still shows it until the next sync
    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'Rule #3' }).where(sql`${s.images.id} = ${copy.id}`);
    for (const synced of [false, true]) {
      if (synced) await sync();
      const res = await reverseFiltered();
      expect(idsOf(res), `synced: ${synced}`).not.toContain(copy.id);
      expect(res.body.total).toBe(before.body.total - 1);
      expect(JSON.stringify(res.body)).not.toContain('SECRET');
    }
  });
});

describe('errors', () => {
  it('answers a refused URL with the empty result and a Warning header', async () => {
    const res = await h.api(`/search/reverse?url=${encodeURIComponent('https://10.0.0.1/a.png')}`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ images: [], interactions: [], total: 0 });
    expect(res.headers.get('warning')).toBe('199 tagwise "url not fetched: forbidden_address"');
    const text = await h.api(`/search/reverse?url=${encodeURIComponent(h.serve('/text.png', { body: 'not an image' }))}`, { method: 'POST' });
    expect(text.body).toEqual({ images: [], interactions: [], total: 0 });
    expect(text.headers.get('warning')).toBe('199 tagwise "image not readable"');
    const ok = await reverse(original);
    expect(ok.headers.get('warning')).toBeNull();
  });
});

describe('near-duplicates at submission', () => {
  it('accepts a near-duplicate, records a report, and merges it with the admin command', async () => {
    const copy = await sharp(original).resize({ width: 250 }).jpeg({ quality: 60 }).toBuffer();
    const res = await h.submit(key, { url: h.serve('/near-copy.jpg', { body: copy }), image: { tag_input: 'safe, solo, pony' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const copyId = res.body.image.id as number;
    await h.drain();
    const reports = await h.db.select().from(s.duplicateReports).where(sql`${s.duplicateReports.imageId} = ${copyId}`);
    expect(reports.map((r) => [r.duplicateOfImageId, r.state])).toContainEqual([originalId, 'open']);
    expect(reports.find((r) => r.duplicateOfImageId === originalId)!.distance).toBeLessThanOrEqual(10);
    // an unrelated submission is not reported
    const other = (await generateDemoImage(909, 'png')).bytes;
    const otherRes = await h.submit(key, { url: h.serve('/unrelated-new.png', { body: other }), image: { tag_input: 'safe, solo, pony' } });
    await h.drain();
    expect(await h.db.select().from(s.duplicateReports).where(sql`${s.duplicateReports.imageId} = ${otherRes.body.image.id}`)).toEqual([]);

    const out: string[] = [];
    const handle = await openDatabase({ databaseUrl: h.dbUrl, dataDir: h.dataDir, max: 1 });
    try {
      const run = (...argv: string[]) => runCommand(argv, { out: (l) => out.push(l) }, (fn) => fn(handle.db));
      await run('duplicates', 'list');
      expect(out.join('\n')).toContain(`image ${copyId} resembles ${originalId}`);
      await run('duplicates', 'merge', String(copyId), String(originalId));
      await expect(run('duplicates', 'merge', String(originalId), String(copyId))).rejects.toThrow(/hidden/);
    } finally {
      await handle.close();
    }
    const page = await h.api(`/images/${copyId}`);
    expect(page.body.image).toMatchObject({ hidden_from_users: true, duplicate_of: originalId });
    const [report] = await h.db.select().from(s.duplicateReports).where(sql`${s.duplicateReports.imageId} = ${copyId} and ${s.duplicateReports.duplicateOfImageId} = ${originalId}`);
    expect(report!.state).toBe('merged');
  });

  it('still refuses an exact duplicate', async () => {
    const res = await h.submit(key, { url: h.serve('/again.png', { body: original }), image: { tag_input: 'safe, solo, pony' } });
    expect(res.status).not.toBe(200);
  });
});
