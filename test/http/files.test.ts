import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { changeFeedOf } from '../../src/db/change-feed.js';
import * as s from '../../src/db/schema/index.js';
import { resolveFilePath } from '../../src/http/routes/files.js';
import { parseRange } from '../../src/http/render/file-response.js';
import { CDN_URL, insertImage, insertTag, startHarness, ymd, type Harness } from './harness.js';

let h: Harness;
let image: Awaited<ReturnType<typeof insertImage>>;
const full = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
const thumb = Buffer.from('thumbnail bytes');
const mtime = new Date('2024-01-02T03:04:05Z');

function put(rel: string, bytes: Buffer) {
  const file = join(h.dataDir, rel);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, bytes);
  utimesSync(file, mtime, mtime);
}

beforeAll(async () => {
  h = await startHarness();
  const safe = await insertTag(h.db, 'safe', { category: 'rating' });
  image = await insertImage(h.db, { values: { imageWidth: 300, imageHeight: 300 }, tags: [safe] });
  const d = ymd(image.createdAt);
  put(`images/${d}/${image.id}/full.png`, full);
  put(`images/${d}/${image.id}/thumb.png`, thumb);
  for (const name of ['thumb_tiny', 'thumb_small', 'small']) put(`images/${d}/${image.id}/${name}.png`, thumb);
  put('avatars/ab/cd.png', thumb);
  put('secret.txt', Buffer.from('outside the image root'));
});
afterAll(async () => {
  await h?.close();
});

/** The path part of an absolute CDN URL from the API. */
const pathOf = (url: string) => {
  expect(url.startsWith(`${CDN_URL}/`)).toBe(true);
  return url.slice(CDN_URL.length);
};

describe('file serving', () => {
  it('serves every URL the image JSON gives (view_url, full and representations)', async () => {
    const { body } = await h.api(`/images/${image.id}`);
    const urls = [body.image.view_url, ...Object.values(body.image.representations)] as string[];
    for (const url of urls) {
      const res = await h.request(pathOf(url));
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const bytes = Buffer.from(await res.arrayBuffer());
      const name = url.includes('/view/') ? 'full' : url.split('/').pop()!.replace('.png', '');
      expect(bytes.equals(name === 'full' ? full : thumb), url).toBe(true);
    }
  });

  it('ignores the text after the id in view and download URLs', async () => {
    const d = ymd(image.createdAt);
    for (const path of [`/img/view/${d}/${image.id}.png`, `/img/view/${d}/${image.id}__safe_solo+tag-colon-x.png`, `/img/view/${d}/${image.id}_anything.here.png`]) {
      const res = await h.request(path);
      expect(res.status, path).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(full)).toBe(true);
    }
    const dl = await h.request(`/img/download/${d}/${image.id}__safe.png`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get('content-disposition')).toBe(`attachment; filename="${image.id}__safe.png"`);
  });

  it('sends validators and answers conditional requests with 304', async () => {
    const path = `/img/${ymd(image.createdAt)}/${image.id}/thumb.png`;
    const res = await h.request(path);
    const etag = res.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]+-[0-9a-f]+"$/);
    expect(res.headers.get('last-modified')).toBe(mtime.toUTCString());
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-length')).toBe(String(thumb.length));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    await res.arrayBuffer();
    const a = await h.request(path, { headers: { 'If-None-Match': etag } });
    expect(a.status).toBe(304);
    expect(a.headers.get('etag')).toBe(etag);
    expect(await a.text()).toBe('');
    const b = await h.request(path, { headers: { 'If-Modified-Since': mtime.toUTCString() } });
    expect(b.status).toBe(304);
    const c = await h.request(path, { headers: { 'If-None-Match': '"other"' } });
    expect(c.status).toBe(200);
    await c.arrayBuffer();
  });

  it('answers byte ranges with 206 and unsatisfiable ones with 416', async () => {
    const path = `/img/view/${ymd(image.createdAt)}/${image.id}.png`;
    const a = await h.request(path, { headers: { Range: 'bytes=10-19' } });
    expect(a.status).toBe(206);
    expect(a.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(a.headers.get('content-length')).toBe('10');
    expect(Buffer.from(await a.arrayBuffer()).equals(full.subarray(10, 20))).toBe(true);
    const b = await h.request(path, { headers: { Range: 'bytes=990-' } });
    expect(b.status).toBe(206);
    expect(Buffer.from(await b.arrayBuffer()).equals(full.subarray(990))).toBe(true);
    const c = await h.request(path, { headers: { Range: 'bytes=-5' } });
    expect(c.headers.get('content-range')).toBe('bytes 995-999/1000');
    expect(Buffer.from(await c.arrayBuffer()).equals(full.subarray(995))).toBe(true);
    const d = await h.request(path, { headers: { Range: 'bytes=500-5000' } });
    expect(d.headers.get('content-range')).toBe('bytes 500-999/1000');
    await d.arrayBuffer();
    const e = await h.request(path, { headers: { Range: 'bytes=1000-' } });
    expect(e.status).toBe(416);
    expect(e.headers.get('content-range')).toBe('bytes */1000');
    expect(await e.json()).toStrictEqual({ error: 'Range Not Satisfiable' });
    // Several ranges or a stale If-Range: the whole file.
    const f = await h.request(path, { headers: { Range: 'bytes=0-1,5-6' } });
    expect(f.status).toBe(200);
    await f.arrayBuffer();
    const g = await h.request(path, { headers: { Range: 'bytes=0-1', 'If-Range': '"stale"' } });
    expect(g.status).toBe(200);
    expect((await g.arrayBuffer()).byteLength).toBe(1000);
  });

  it('answers HEAD with headers only', async () => {
    const res = await h.request(`/img/view/${ymd(image.createdAt)}/${image.id}.png`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('1000');
    expect(await res.text()).toBe('');
  });

  it('serves avatars and answers 404 JSON for missing files and anything that is not a file path', async () => {
    expect((await h.request('/avatars/ab/cd.png')).status).toBe(200);
    const d = ymd(image.createdAt);
    for (const path of [
      `/img/${d}/${image.id}/medium.png`,
      `/img/${d}/999999/full.png`,
      '/img/../secret.txt',
      '/img/%2e%2e/secret.txt',
      `/img/${d}/${image.id}/..%2f..%2f..%2f..%2fsecret.txt`,
      `/img/view/${d}/../../secret.txt`,
      '/img/view/2024/1/1/abc.png',
      '/avatars/../secret.txt',
      '/avatars/.hidden',
      '/avatars/%2e%2e/secret.txt',
      '/img/',
    ]) {
      const res = await h.request(path);
      expect(res.status, path).toBe(404);
      expect(await res.json(), path).toStrictEqual({ error: 'Not found' });
    }
  });
});

describe('files of merged and deleted images', () => {
  /** An image with its original and every representation stored, and those files' paths. */
  async function withFiles(values: NonNullable<Parameters<typeof insertImage>[1]>['values']) {
    const stored = await insertImage(h.db, { values: { imageWidth: 300, imageHeight: 300, ...values } });
    const d = ymd(stored.createdAt);
    const names = ['full', 'thumb_tiny', 'thumb_small', 'thumb', 'small', 'medium', 'large', 'tall'];
    for (const name of names) put(`images/${d}/${stored.id}/${name}.png`, name === 'full' ? full : thumb);
    put(`images/${d}/${stored.id}-SecretKey1/full.png`, full);
    const paths = [
      ...names.map((name) => `/img/${d}/${stored.id}/${name}.png`),
      `/img/${d}/${stored.id}-SecretKey1/full.png`,
      `/img/view/${d}/${stored.id}.png`,
      `/img/view/${d}/${stored.id}__safe.png`,
      `/img/download/${d}/${stored.id}__safe.png`,
    ];
    return { stored, paths };
  }

  it('answers 404 for every file of a deleted or merged image, and serves them again once it is shown', async () => {
    const target = await insertImage(h.db, {});
    const deleted = await withFiles({ hiddenFromUsers: true, deletionReason: 'Rule #3' });
    const merged = await withFiles({ hiddenFromUsers: true, duplicateId: target.id });
    for (const path of [...deleted.paths, ...merged.paths]) {
      for (const method of ['GET', 'HEAD']) {
        const res = await h.request(path, { method });
        expect(res.status, `${method} ${path}`).toBe(404);
        if (method === 'GET') expect(await res.json(), path).toStrictEqual({ error: 'Not found' });
        else await res.arrayBuffer();
      }
    }
    // the state decides, not the files: shown again, the same paths answer
    await h.db.update(s.images).set({ hiddenFromUsers: false }).where(eq(s.images.id, deleted.stored.id));
    await changeFeedOf(h.db).sync();
    for (const path of deleted.paths) {
      const res = await h.request(path);
      expect(res.status, path).toBe(200);
      await res.arrayBuffer();
    }
  });

  it('withholds the files of an image read before (kept in memory) as soon as it is deleted', async () => {
    const { stored, paths } = await withFiles({});
    await changeFeedOf(h.db).sync();
    expect((await h.api(`/images/${stored.id}`)).body.image.hidden_from_users).toBe(false);
    for (const path of paths) expect((await h.request(path, { method: 'HEAD' })).status, path).toBe(200);
    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'Rule #3' }).where(eq(s.images.id, stored.id));
    await changeFeedOf(h.db).sync();
    for (const path of paths) expect((await h.request(path, { method: 'HEAD' })).status, path).toBe(404);
    // the stub read and kept: still withheld
    expect((await h.api(`/images/${stored.id}`)).body.image).not.toHaveProperty('representations');
    for (const path of paths) expect((await h.request(path, { method: 'HEAD' })).status, path).toBe(404);
  });
});

/** A GET whose path is sent byte for byte (fetch would normalise dot segments first). */
function rawGet(path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('latin1');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('path traversal', () => {
  it('never serves files outside the stores, whatever the raw path', async () => {
    const d = ymd(image.createdAt);
    for (const path of [
      '/img/../secret.txt',
      '/img/%2e%2e/secret.txt',
      '/img/%2E%2E/%2E%2E/secret.txt',
      `/img/${d}/${image.id}/..%2f..%2f..%2f..%2f..%2fsecret.txt`,
      `/img/${d}/${image.id}/../../../../../secret.txt`,
      `/img/view/${d}/${image.id}/../../../../../../secret.txt`,
      `/img/view/${d}/../../../../secret.png`,
      '/avatars/../secret.txt',
      '/avatars/..%2fsecret.txt',
      '/avatars/ab/../../secret.txt',
      '/avatars/%00/cd.png',
      '/tag-img/..%5Csecret.txt',
    ]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).not.toContain('outside the image root');
      expect(JSON.parse(res.body), path).toStrictEqual({ error: 'Not found' });
    }
  });
});

describe('file path and range parsing', () => {
  it('maps public paths to storage keys', () => {
    expect(resolveFilePath('/img/2024/1/2/5/thumb.png')).toEqual({ root: 'images', key: '2024/1/2/5/thumb.png', download: false, ext: 'png', imageId: 5 });
    expect(resolveFilePath('/img/2024/1/2/5-Key9/thumb.png')?.imageId).toBe(5);
    expect(resolveFilePath('/img/view/2024/1/2/5__a_b.JPG')).toEqual({ root: 'images', key: '2024/1/2/5/full.jpg', download: false, ext: 'jpg', imageId: 5 });
    expect(resolveFilePath('/avatars/ab/cd.png')?.imageId).toBeUndefined();
    expect(resolveFilePath('/img/download/2024/1/2/5.gif')?.download).toBe(true);
    expect(resolveFilePath('/img/2024/1/2/5/../x.png')).toBeUndefined();
    expect(resolveFilePath('/img/view/2024/1/2/56.png')?.key).toBe('2024/1/2/56/full.png');
  });

  it('parses single byte ranges', () => {
    expect(parseRange(undefined, 10)).toBeUndefined();
    expect(parseRange('bytes=0-0', 10)).toEqual({ start: 0, end: 0 });
    expect(parseRange('bytes=-20', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRange('bytes=5-2', 10)).toBeUndefined();
    expect(parseRange('items=0-1', 10)).toBeUndefined();
    expect(parseRange('bytes=10-', 10)).toBe('unsatisfiable');
    expect(parseRange('bytes=-0', 10)).toBe('unsatisfiable');
  });
});
