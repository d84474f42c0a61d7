/**
 * Search pages are built from cached image JSON and a cached current filter. Cached or not, a page
 * is the same text; and whatever an image's JSON is built from, changed straight in the database
 * (as the admin CLI and imports do), shows in the next pages within a second.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { renderImages } from '../../src/http/render/images.js';
import { skipOutbox } from '../../src/seed/common.js';
import { insertFilter, insertImage, insertTag, insertUser } from '../http/harness.js';
import { qs, startSearchHarness, untilSearchShows as until, type SearchHarness } from './harness.js';

let h: SearchHarness;
let safe: typeof s.tags.$inferSelect;
let defaultFilter: typeof s.filters.$inferSelect;

const LIMIT_MS = 1000;

beforeAll(async () => {
  h = await startSearchHarness();
  safe = await insertTag(h.db, 'safe', { category: 'rating' });
  defaultFilter = await insertFilter(h.db, { name: 'Default', system: true });
  await h.reindex();
  h.indexer.start();
  const started = Date.now();
  while (!h.caches.feed.listening) {
    if (Date.now() - started > 5000) throw new Error('the record-change feed never started listening');
    await new Promise((r) => setTimeout(r, 10));
  }
});

afterAll(async () => {
  await h?.close();
});

const imagePage = async (id: number, extra: Record<string, string | number> = {}) => {
  const res = await fetch(`${h.url}/api/v1/json/search/images${qs({ q: `id:${id}`, ...extra })}`);
  expect(res.status).toBe(200);
  return { text: await res.text(), etag: res.headers.get('etag') };
};

const imageJson = async (id: number) => JSON.parse((await imagePage(id)).text).images[0];

const isCached = (id: number) => h.caches.images.lookup([id]).found.has(id);

/** A cached image, found by search: its page was answered once and kept. */
async function cachedImage(fixture: Parameters<typeof insertImage>[1]) {
  const image = await insertImage(h.db, fixture);
  await until(async () => (await imageJson(image.id))?.id === image.id);
  await imageJson(image.id);
  expect(isCached(image.id)).toBe(true);
  return image;
}

describe('a cached page', () => {
  it('is the same text, ETag and images as one rendered afresh, spoilered per filter', async () => {
    const solo = await insertTag(h.db, 'solo');
    const spoilers = await insertFilter(h.db, { name: 'spoilers', public: true, spoileredTagIds: [solo.id] });
    const a = await insertImage(h.db, { tags: [safe, solo], sources: ['https://example.com/a'] });
    const b = await insertImage(h.db, { tags: [safe] });
    const path = `/api/v1/json/search/images${qs({ q: `id:${a.id} || id:${b.id}`, sf: 'id', sd: 'asc' })}`;
    await until(async () => ((await (await fetch(`${h.url}${path}`)).json()) as { total: number }).total === 2);
    h.caches.images.clear();

    const cold = await fetch(`${h.url}${path}`);
    const coldText = await cold.text();
    expect(isCached(a.id) && isCached(b.id)).toBe(true);
    const warm = await fetch(`${h.url}${path}`);
    expect(await warm.text()).toBe(coldText);
    expect(warm.headers.get('etag')).toBe(cold.headers.get('etag'));
    expect(warm.headers.get('content-type')).toMatch(/^application\/json/);

    const deps = { config: h.config, db: h.db, engine: h.engine };
    const fresh = await renderImages(deps, [a.id, b.id], { filter: defaultFilter, user: null });
    expect(JSON.parse(coldText)).toStrictEqual({ images: fresh, interactions: [], total: 2 });
    expect(coldText).toBe(JSON.stringify({ images: fresh, interactions: [], total: 2 }));

    const spoiled = JSON.parse(await (await fetch(`${h.url}${path}&filter_id=${spoilers.id}`)).text());
    expect(spoiled.images.map((i: { id: number; spoilered: boolean }) => [i.id, i.spoilered])).toEqual([
      [a.id, true],
      [b.id, false],
    ]);
    const spoiledFresh = await renderImages(deps, [a.id, b.id], { filter: spoilers, user: null });
    expect(spoiled.images).toStrictEqual(spoiledFresh);
    // the same cached images through each filter in turn: each answer is its own filter's
    for (let round = 0; round < 2; round++) {
      expect(await (await fetch(`${h.url}${path}`)).text()).toBe(coldText);
      expect(JSON.parse(await (await fetch(`${h.url}${path}&filter_id=${spoilers.id}`)).text())).toStrictEqual(spoiled);
    }
  });
});

describe("a page's ETag", () => {
  it('changes with its text: an image changed, spoilered or added, and stays with the same text', async () => {
    const pink = await insertTag(h.db, 'pink');
    const spoilers = await insertFilter(h.db, { name: 'pink spoilers', public: true, spoileredTagIds: [pink.id] });
    const a = await insertImage(h.db, { tags: [safe, pink] });
    const q = `id:${a.id} || description:"etag probe"`;
    const page = async (extra: Record<string, string | number> = {}) => {
      const res = await fetch(`${h.url}/api/v1/json/search/images${qs({ q, sf: 'id', sd: 'asc', ...extra })}`);
      return { text: await res.text(), etag: res.headers.get('etag')! };
    };
    await until(async () => JSON.parse((await page()).text).total === 1);
    const first = await page();
    expect((await page()).etag).toBe(first.etag);

    const spoiled = await page({ filter_id: spoilers.id });
    expect(spoiled.text).not.toBe(first.text);
    expect(spoiled.etag).not.toBe(first.etag);

    await h.db.update(s.images).set({ description: 'changed' }).where(eq(s.images.id, a.id));
    expect(await until(async () => JSON.parse((await page()).text).images[0].description === 'changed')).toBeLessThan(LIMIT_MS);
    const edited = await page();
    expect(edited.etag).not.toBe(first.etag);

    await insertImage(h.db, { tags: [safe], values: { description: 'etag probe' } });
    expect(await until(async () => JSON.parse((await page()).text).total === 2)).toBeLessThan(LIMIT_MS);
    const grown = await page();
    expect(new Set([first.etag, spoiled.etag, edited.etag, grown.etag]).size).toBe(4);
    const revalidated = await fetch(`${h.url}/api/v1/json/search/images${qs({ q, sf: 'id', sd: 'asc' })}`, { headers: { 'If-None-Match': grown.etag } });
    expect(revalidated.status).toBe(304);
  });
});

describe('changes reach cached pages within a second', () => {
  it('a tag renamed, and its category changed (the display order)', async () => {
    const alpha = await insertTag(h.db, 'alpha');
    const zebra = await insertTag(h.db, 'zebra');
    const image = await cachedImage({ tags: [zebra, alpha] });
    expect((await imageJson(image.id)).tags).toEqual(['alpha', 'zebra']);

    await h.db.update(s.tags).set({ name: 'aardvark', slug: 'aardvark', nameInNamespace: 'aardvark' }).where(eq(s.tags.id, zebra.id));
    expect(await until(async () => (await imageJson(image.id)).tags.includes('aardvark'))).toBeLessThan(LIMIT_MS);
    expect((await imageJson(image.id)).tags).toEqual(['aardvark', 'alpha']);

    await imageJson(image.id);
    expect(isCached(image.id)).toBe(true);
    await h.db.update(s.tags).set({ category: 'rating' }).where(eq(s.tags.id, alpha.id));
    expect(await until(async () => (await imageJson(image.id)).tags[0] === 'alpha')).toBeLessThan(LIMIT_MS);
  });

  it('the uploader renamed', async () => {
    const user = await insertUser(h.db, { name: 'Before' });
    const image = await cachedImage({ tags: [safe], values: { userId: user.id } });
    expect((await imageJson(image.id)).uploader).toBe('Before');
    await h.db.update(s.users).set({ name: 'After', slug: 'after' }).where(eq(s.users.id, user.id));
    expect(await until(async () => (await imageJson(image.id)).uploader === 'After')).toBeLessThan(LIMIT_MS);
  });

  it('processing done: intensities and dimensions written with the row', async () => {
    const image = await cachedImage({ tags: [safe], values: { processed: false } });
    expect((await imageJson(image.id)).intensities).toBeNull();
    await h.db.transaction(async (tx) => {
      await tx.insert(s.imageIntensities).values({ imageId: image.id, nw: 1, ne: 2, sw: 3, se: 4 });
      await tx.update(s.images).set({ processed: true, imageWidth: 640 }).where(eq(s.images.id, image.id));
    });
    expect(await until(async () => (await imageJson(image.id)).intensities?.se === 4)).toBeLessThan(LIMIT_MS);
    expect((await imageJson(image.id)).width).toBe(640);
  });

  it('a source added', async () => {
    const image = await cachedImage({ tags: [safe] });
    await h.db.insert(s.imageSources).values({ imageId: image.id, source: 'https://example.com/new', position: 0 });
    expect(await until(async () => (await imageJson(image.id)).source_url === 'https://example.com/new')).toBeLessThan(LIMIT_MS);
  });

  it('a bulk write that bypasses the outbox empties the cache', async () => {
    const image = await cachedImage({ tags: [safe] });
    await h.db.transaction(async (tx) => {
      await skipOutbox(tx);
      await tx.update(s.images).set({ description: 'bulk loaded' }).where(eq(s.images.id, image.id));
    });
    expect(await until(async () => (await imageJson(image.id)).description === 'bulk loaded')).toBeLessThan(LIMIT_MS);
  });

  it('the Default filter edited: its new spoilers apply', async () => {
    const scary = await insertTag(h.db, 'scary');
    const image = await cachedImage({ tags: [safe, scary] });
    expect((await imageJson(image.id)).spoilered).toBe(false);
    await h.db
      .update(s.filters)
      .set({ spoileredTagIds: sql`array_append(${s.filters.spoileredTagIds}, ${scary.id})` })
      .where(eq(s.filters.id, defaultFilter.id));
    expect(await until(async () => (await imageJson(image.id)).spoilered === true)).toBeLessThan(LIMIT_MS);
  });

  it('the Default filter edited: a page asked just before no longer lists what it now hides', async () => {
    const gory = await insertTag(h.db, 'gory');
    const image = await cachedImage({ tags: [safe, gory] });
    const listed = async (extra: Record<string, string | number> = {}) => JSON.parse((await imagePage(image.id, extra)).text).images.length;
    // the page's request is built now, and would be reused for a second if kept by its text alone
    expect(await listed()).toBe(1);
    const asked = Date.now();
    await h.db
      .update(s.filters)
      .set({ hiddenTagIds: sql`array_append(${s.filters.hiddenTagIds}, ${gory.id})` })
      .where(eq(s.filters.id, defaultFilter.id));
    // another page, built after the edit reached the filter cache
    expect(await until(async () => (await listed({ per_page: 10 })) === 0)).toBeLessThan(LIMIT_MS);
    expect(await listed()).toBe(0);
    expect(Date.now() - asked).toBeLessThan(1000);
  });
});
