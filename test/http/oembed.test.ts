import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { imageIdFromUrl, urlPath } from '../../src/http/routes/oembed.js';
import { assertResource } from '../support/resources.js';
import { OEMBED } from '../support/spec-shapes.js';
import { CDN_URL, insertImage, insertTag, SITE_NAME, startHarness, ymd, type Harness } from './harness.js';

let h: Harness;
let image: Awaited<ReturnType<typeof insertImage>>;
let big: Awaited<ReturnType<typeof insertImage>>;
let tall: Awaited<ReturnType<typeof insertImage>>;
let untagged: Awaited<ReturnType<typeof insertImage>>;

beforeAll(async () => {
  h = await startHarness();
  const safe = await insertTag(h.db, 'safe', { category: 'rating' });
  const labra = await insertTag(h.db, 'artist:labra', { category: 'origin' });
  const zed = await insertTag(h.db, 'artist:zed', { category: 'origin' });
  const solo = await insertTag(h.db, 'solo');
  image = await insertImage(h.db, {
    values: { score: 7, commentsCount: 2, imageWidth: 800, imageHeight: 600 },
    tags: [solo, zed, safe, labra],
    sources: ['https://art.example/1', 'https://art.example/2'],
  });
  big = await insertImage(h.db, { values: { imageWidth: 4000, imageHeight: 2000, imageAspectRatio: 2, imageFormat: 'jpg', imageMimeType: 'image/jpeg' }, tags: [safe] });
  tall = await insertImage(h.db, { values: { imageWidth: 1000, imageHeight: 3000, imageAspectRatio: 1 / 3 }, tags: [safe] });
  untagged = await insertImage(h.db, {});
});
afterAll(async () => {
  await h?.close();
});

const oembed = (url: string) => h.api(`/oembed?url=${encodeURIComponent(url)}`);

describe('GET /oembed', () => {
  it('answers the exact body for an app link', async () => {
    const res = await oembed(`https://booru.test/images/${image.id}`);
    expect(res.status).toBe(200);
    const d = ymd(image.createdAt);
    expect(res.body).toStrictEqual({
      type: 'photo',
      version: '1.0',
      title: `#${image.id} - safe, artist:labra, artist:zed, solo - ${SITE_NAME}`,
      author_name: 'labra, zed',
      author_url: 'https://art.example/1',
      provider_name: SITE_NAME,
      provider_url: 'https://booru.test',
      cache_age: 7200,
      thumbnail_url: `${CDN_URL}/img/${d}/${image.id}/full.png`,
      thumbnail_width: 800,
      thumbnail_height: 600,
      url: `${CDN_URL}/img/view/${d}/${image.id}.png`,
      width: 800,
      height: 600,
      site_id: image.id,
      site_score: 7,
      site_comments: 2,
      site_tags: ['safe', 'artist:labra', 'artist:zed', 'solo'],
    });
    assertResource(res.body, OEMBED);
    expect(res.headers.get('cache-control')).toBe('public, max-age=7200');
  });

  it('resolves short app links and CDN URLs, ignoring query strings', async () => {
    const d = ymd(image.createdAt);
    for (const url of [
      `https://booru.test/${image.id}`,
      `https://booru.test/images/${image.id}?q=safe#comments`,
      `booru.test/images/${image.id}`,
      `/images/${image.id}`,
      `${CDN_URL}/img/view/${d}/${image.id}__safe_solo.png`,
      `${CDN_URL}/img/download/${d}/${image.id}.png`,
      `${CDN_URL}/img/${d}/${image.id}/thumb.png`,
      `https://other.cdn/img/view/${d}/${image.id}.png?x=1`,
    ]) {
      const res = await oembed(url);
      expect(res.status, url).toBe(200);
      expect(res.body.site_id, url).toBe(image.id);
    }
  });

  it('scales the thumbnail of images larger than 1280×1024 into that box', async () => {
    const wide = (await oembed(`/images/${big.id}`)).body;
    expect(wide).toMatchObject({
      thumbnail_url: `${CDN_URL}/img/${ymd(big.createdAt)}/${big.id}/large.jpg`,
      thumbnail_width: 1280,
      thumbnail_height: 640,
      width: 4000,
      height: 2000,
    });
    const high = (await oembed(`/images/${tall.id}`)).body;
    expect(high).toMatchObject({ thumbnail_width: 341, thumbnail_height: 1024 });
  });

  it('keeps the reference title shape without tags', async () => {
    const res = await oembed(`/images/${untagged.id}`);
    expect(res.body.title).toBe(`#${untagged.id} -  - ${SITE_NAME}`);
    expect(res.body.author_name).toBe('');
    expect(res.body.author_url).toBe('');
    expect(res.body.site_tags).toEqual([]);
  });

  it('answers 404 for missing, pathless, unresolvable, out-of-range and hidden', async () => {
    const hidden = await insertImage(h.db, { values: { hiddenFromUsers: true, deletionReason: 'x' } });
    const cases = [
      '/oembed',
      '/oembed?url=',
      `/oembed?url=${encodeURIComponent('https://booru.test')}`,
      `/oembed?url=${encodeURIComponent('https://booru.test/tags/safe')}`,
      `/oembed?url=${encodeURIComponent('https://booru.test/img/foo/123.png')}`,
      `/oembed?url=${encodeURIComponent('https://booru.test/images/99999999999')}`,
      `/oembed?url=${encodeURIComponent('https://booru.test/images/999999')}`,
      `/oembed?url=${encodeURIComponent(`https://booru.test/images/${hidden.id}`)}`,
      '/oembed?url[]=x',
    ];
    for (const path of cases) {
      const res = await h.api(path);
      expect(res.status, path).toBe(404);
      expect(res.body, path).toStrictEqual({ error: 'Not found' });
    }
  });
});

describe('oEmbed URL parsing', () => {
  it('extracts paths and ids like the reference', () => {
    expect(urlPath('https://a.b/images/1?x#y')).toBe('/images/1');
    expect(urlPath('https://a.b')).toBe('');
    expect(imageIdFromUrl('https://a.b/img/2024/1/2/55/thumb.png')).toBe(55);
    expect(imageIdFromUrl('https://a.b/img/view/2024/01/02/55__x.png')).toBe(55);
    expect(imageIdFromUrl('https://a.b/img/2024/1/2/x55/thumb.png')).toBeUndefined();
    expect(imageIdFromUrl('https://a.b/images/12/comments/34')).toBe(12);
    expect(imageIdFromUrl('https://a.b/images/abc')).toBeUndefined();
  });
});
