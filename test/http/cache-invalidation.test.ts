/**
 * Each in-memory cache of the read path is emptied exactly by the writes that touch it, against
 * the real app and PostgreSQL: after a write is announced, the answers it touched are fresh, and
 * the answers it did not touch are still served from memory.
 *
 * How "still served from memory" is seen from outside: a record is changed silently (in a
 * transaction with `tagwise.skip_outbox`, which neither queues nor announces it), so while its
 * entry is kept the old answer keeps coming; once its entry is dropped the new one does.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { featureImage } from '../../src/contexts/images/features.js';
import { editSystemFilter } from '../../src/contexts/filters/system-filters.js';
import { banUser, unban } from '../../src/contexts/users/bans.js';
import { issueKey, revokeKey } from '../../src/contexts/users/keys.js';
import { setRole } from '../../src/contexts/users/accounts.js';
import { announceChanges, changeFeedOf, type RecordChange } from '../../src/db/change-feed.js';
import type { Database } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { ImageJsonCache } from '../../src/caches/image-json-cache.js';
import { insertFilter, insertImage, insertTag, insertUser, startHarness, ymd, type Harness } from './harness.js';

let h: Harness;
/**
 * What the search engine answers, by index: these tests are about what the app keeps of the hits'
 * JSON, so the hits are chosen here (the engine's own answers have their suites).
 */
const hits: Record<string, number[]> = {};
const scriptedEngine = new Proxy({ kind: 'embedded' } as SearchEngine, {
  get(target, prop) {
    if (prop === 'search') return async (index: string) => ({ ids: hits[index] ?? [], total: (hits[index] ?? []).length });
    return Reflect.get(target, prop);
  },
});
let safe: typeof s.tags.$inferSelect;
let pony: typeof s.tags.$inferSelect;
let defaultFilter: typeof s.filters.$inferSelect;

/** Resolves once the app's change feed has heard `kind:id` (subscribe before the write). */
function heard(db: Database, kind: string, id: number): Promise<void> {
  return new Promise((resolve) => {
    const stop = changeFeedOf(db).subscribe((change: RecordChange) => {
      if (change.kind === kind && 'id' in change && change.id === id) {
        stop();
        resolve();
      }
    });
  });
}

/** Every announcement of the writes so far has been heard (one made now is heard after them). */
async function settled(): Promise<void> {
  const marker = heard(h.db, 'settled', 1);
  await announceChanges(h.db, [{ kind: 'settled', id: 1 }]);
  await marker;
}

/** A write no cache hears of: it shows whether an answer is still served from memory. */
async function silently(db: Database, statement: ReturnType<typeof sql>): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`select set_config('tagwise.skip_outbox', 'on', true)`);
    await tx.execute(statement);
  });
}

/** The keys of a merged or deleted image's stub, in the order they are sent. */
const STUB_KEYS = ['id', 'created_at', 'updated_at', 'first_seen_at', 'deletion_reason', 'duplicate_of', 'hidden_from_users'];

const description = async (id: number) => (await h.api(`/images/${id}`)).body.image.description as string;
const oembed = async (id: number) => (await h.api(`/oembed?url=${encodeURIComponent(`/images/${id}`)}`)).body;

/** Two images read once (so both are cached), the second marked by a silent change of its description. */
async function twoCachedImages(tags: (typeof s.tags.$inferSelect)[] = [safe]) {
  const a = await insertImage(h.db, { tags, values: { description: 'a' } });
  const b = await insertImage(h.db, { tags: [safe], values: { description: 'b' } });
  // the inserts' own announcements first: one heard after a read would drop what it kept
  await settled();
  expect(await description(a.id)).toBe('a');
  expect(await description(b.id)).toBe('b');
  await silently(h.db, sql`update images set description = 'b, changed silently' where id = ${b.id}`);
  return { a, b };
}

beforeAll(async () => {
  h = await startHarness({ engine: scriptedEngine });
  safe = await insertTag(h.db, 'safe', { category: 'rating' });
  pony = await insertTag(h.db, 'pony', { category: 'species' });
  defaultFilter = await insertFilter(h.db, { name: 'Default', system: true });
  // the feed listens from the first request on
  await h.api('/filters/system');
  const feed = changeFeedOf(h.db);
  for (let i = 0; i < 200 && !feed.live; i++) await new Promise((r) => setTimeout(r, 25));
  if (!feed.live) throw new Error('the change feed did not start listening');
});

afterAll(async () => {
  await h?.close();
});

describe('rendered images (GET /images/:id, oEmbed, search pages)', () => {
  it('a tag change on one image refreshes it, and no other', async () => {
    const { a, b } = await twoCachedImages();
    const change = heard(h.db, 'images', a.id);
    await h.db.insert(s.imageTaggings).values({ imageId: a.id, tagId: pony.id });
    await change;
    expect((await h.api(`/images/${a.id}`)).body.image.tags).toEqual(['safe', 'pony']);
    expect(await description(b.id)).toBe('b');
  });

  it("an anonymous caller's image read again is answered whole from memory, no image looked up; a caller with a key gets their own", async () => {
    const { a, b } = await twoCachedImages();
    const fan = await insertUser(h.db, { name: `fan ${Math.random()}`, confirmedAt: new Date() });
    const { key } = await issueKey(h.db, fan.name);
    // (the fave changes the image's counts: it is made again once)
    await h.db.insert(s.imageFaves).values({ imageId: a.id, userId: fan.id });
    await settled();
    expect(await description(a.id)).toBe('a');
    const lookups = vi.spyOn(ImageJsonCache.prototype, 'lookup');
    try {
      const first = await h.api(`/images/${a.id}`);
      expect(first.body).toMatchObject({ image: { id: a.id, description: 'a' }, interactions: [] });
      expect(await description(b.id)).toBe('b');
      expect(lookups).not.toHaveBeenCalled();
      // the same bytes and validator as when it was made
      expect((await h.api(`/images/${a.id}`)).headers.get('etag')).toBe(first.headers.get('etag'));
      const keyed = await h.api(`/images/${a.id}?key=${key}`);
      expect(keyed.body.interactions).toEqual([expect.objectContaining({ image_id: a.id, interaction_type: 'faved' })]);
      expect(lookups).toHaveBeenCalledTimes(1);
    } finally {
      lookups.mockRestore();
    }
  });

  it('a renamed tag refreshes the images that carry it, and no other', async () => {
    const rare = await insertTag(h.db, 'rare one');
    const { a, b } = await twoCachedImages([rare]);
    const change = heard(h.db, 'tag_display', rare.id);
    await h.db.update(s.tags).set({ name: 'rare two', slug: 'rare+two' }).where(eq(s.tags.id, rare.id));
    await change;
    expect((await h.api(`/images/${a.id}`)).body.image.tags).toEqual(['rare two']);
    expect(await description(b.id)).toBe('b');
  });

  it('a reconnect of the listening connection empties the image cache (announcements made meanwhile were lost)', async () => {
    const { a, b } = await twoCachedImages();
    const everything = new Promise<void>((resolve) => {
      const stop = changeFeedOf(h.db).subscribe((change: RecordChange) => {
        if (change.kind === '*') {
          stop();
          resolve();
        }
      });
    });
    const ended = await h.db.execute(sql`select pg_terminate_backend(pid) as ended from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and query ilike 'listen%record_changes%'`);
    expect(ended.length).toBe(1);
    await everything;
    expect(await description(b.id)).toBe('b, changed silently');
    expect(await description(a.id)).toBe('a');
  });

  it("a tag's image count changing (every upload tagged with it) drops nothing; its category changing drops its images", async () => {
    const { b } = await twoCachedImages();
    const counted = heard(h.db, 'tags', safe.id);
    await h.db.update(s.tags).set({ imagesCount: sql`${s.tags.imagesCount} + 1` }).where(eq(s.tags.id, safe.id));
    await counted;
    expect(await description(b.id)).toBe('b');
    const shown = heard(h.db, 'tag_display', safe.id);
    await h.db.update(s.tags).set({ category: 'character' }).where(eq(s.tags.id, safe.id));
    await shown;
    expect(await description(b.id)).toBe('b, changed silently');
    const restored = heard(h.db, 'tag_display', safe.id);
    await h.db.update(s.tags).set({ category: 'rating' }).where(eq(s.tags.id, safe.id));
    await restored;
  });

  it('an upload drops nothing, and the new image is read fresh', async () => {
    const { b } = await twoCachedImages();
    const uploaded = await insertImage(h.db, { tags: [pony], values: { description: 'new' } });
    const change = heard(h.db, 'images', uploaded.id);
    await h.db.insert(s.imageSources).values({ imageId: uploaded.id, source: 'https://example.com/new', position: 0 });
    await change;
    expect(await description(uploaded.id)).toBe('new');
    expect(await description(b.id)).toBe('b');
  });

  it('hiding an image refreshes its answer and ends its oEmbed answer, and no other', async () => {
    const { a, b } = await twoCachedImages();
    expect((await oembed(a.id)).type).toBe('photo');
    const change = heard(h.db, 'images', a.id);
    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'Rule 1' }).where(eq(s.images.id, a.id));
    await change;
    const stub = (await h.api(`/images/${a.id}`)).body.image;
    expect(Object.keys(stub)).toEqual(STUB_KEYS);
    expect(stub).toMatchObject({ id: a.id, hidden_from_users: true, deletion_reason: 'Rule 1', duplicate_of: null });
    expect((await h.api(`/oembed?url=${encodeURIComponent(`/images/${a.id}`)}`)).status).toBe(404);
    expect(await description(b.id)).toBe('b');
  });

  it('merging an image into another refreshes the merged one, and no other', async () => {
    const { a, b } = await twoCachedImages();
    const target = await insertImage(h.db, { tags: [safe] });
    const change = heard(h.db, 'images', a.id);
    await h.db.update(s.images).set({ hiddenFromUsers: true, duplicateId: target.id }).where(eq(s.images.id, a.id));
    await change;
    const stub = (await h.api(`/images/${a.id}`)).body.image;
    expect(Object.keys(stub)).toEqual(STUB_KEYS);
    expect(stub).toMatchObject({ id: a.id, hidden_from_users: true, deletion_reason: null, duplicate_of: target.id });
    expect(await description(b.id)).toBe('b');
  });
});

describe('merged and deleted images (file routes)', () => {
  it('are known from memory, and a change of an image is heard at once', async () => {
    const image = await insertImage(h.db, { tags: [safe] });
    const file = join(h.dataDir, 'images', ymd(image.createdAt), String(image.id), 'full.png');
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, 'bytes');
    const status = async () => {
      const res = await h.request(`/img/${ymd(image.createdAt)}/${image.id}/full.png`);
      await res.arrayBuffer();
      return res.status;
    };
    await settled();
    expect(await status()).toBe(200);
    // hidden silently: the memory still says it is shown
    await silently(h.db, sql`update images set hidden_from_users = true where id = ${image.id}`);
    expect(await status()).toBe(200);
    const deleted = heard(h.db, 'images', image.id);
    await h.db.update(s.images).set({ deletionReason: 'Rule #3' }).where(eq(s.images.id, image.id));
    await deleted;
    expect(await status()).toBe(404);
    expect(await status()).toBe(404);
    const shown = heard(h.db, 'images', image.id);
    await h.db.update(s.images).set({ hiddenFromUsers: false }).where(eq(s.images.id, image.id));
    await shown;
    expect(await status()).toBe(200);
  });
});

describe('filters', () => {
  it('a filter edit changes what the filter spoilers at once; the images stay cached', async () => {
    const { a, b } = await twoCachedImages([pony]);
    expect((await h.api(`/images/${a.id}`)).body.image.spoilered).toBe(false);
    const change = heard(h.db, 'filters', defaultFilter.id);
    await editSystemFilter(h.db, defaultFilter.id, { spoiler: 'pony' });
    await change;
    expect((await h.api(`/images/${a.id}`)).body.image.spoilered).toBe(true);
    expect(await description(a.id)).toBe('a');
    expect(await description(b.id)).toBe('b');
    await editSystemFilter(h.db, defaultFilter.id, { spoiler: '' });
  });
});

interface ListedImage {
  id: number;
  description: string;
  tags: string[];
  uploader: string | null;
  spoilered: boolean;
  hidden_from_users: boolean;
}

/** The search page of images an anonymous caller gets for `q` when the engine finds `ids`. */
async function imagePage(q: string, ids: number[]): Promise<ListedImage[]> {
  hits.images = ids;
  const res = await h.api(`/search/images?q=${encodeURIComponent(q)}`);
  expect(res.status).toBe(200);
  return res.body.images as ListedImage[];
}

describe('whole search pages of images (anonymous callers)', () => {
  let pages = 0;
  /** A page of two cached images, the second silently changed after it was made. */
  async function keptPage(tags: (typeof s.tags.$inferSelect)[] = [safe], values: Partial<typeof s.images.$inferInsert> = {}) {
    const a = await insertImage(h.db, { tags, values: { description: 'a', ...values } });
    const b = await insertImage(h.db, { tags: [safe], values: { description: 'b' } });
    await settled();
    const q = `page${++pages}`;
    expect((await imagePage(q, [a.id, b.id])).map((i) => i.description)).toEqual(['a', 'b']);
    await silently(h.db, sql`update images set description = 'b, changed silently' where id = ${b.id}`);
    return { a, b, q };
  }

  it('is answered again whole from memory, no image looked up, until a change touches it', async () => {
    const { a, b, q } = await keptPage();
    const lookups = vi.spyOn(ImageJsonCache.prototype, 'lookup');
    try {
      expect((await imagePage(q, [a.id, b.id])).map((i) => i.description)).toEqual(['a', 'b']);
      // another image changing leaves it
      const other = await insertImage(h.db, { tags: [safe] });
      const change = heard(h.db, 'images', other.id);
      await h.db.insert(s.imageTaggings).values({ imageId: other.id, tagId: pony.id });
      await change;
      expect((await imagePage(q, [a.id, b.id])).map((i) => i.description)).toEqual(['a', 'b']);
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });

  it('a tag change on one of its images shows at once', async () => {
    const { a, b, q } = await keptPage();
    const change = heard(h.db, 'images', a.id);
    await h.db.insert(s.imageTaggings).values({ imageId: a.id, tagId: pony.id });
    await change;
    const page = await imagePage(q, [a.id, b.id]);
    expect(page[0]!.tags).toEqual(['safe', 'pony']);
    // the other image is still its kept JSON
    expect(page[1]!.description).toBe('b');
  });

  it('a renamed tag that one of its images shows, and its uploader’s rename, show at once', async () => {
    const rare = await insertTag(h.db, `rare ${Math.random()}`);
    const uploader = await insertUser(h.db);
    const { a, b, q } = await keptPage([rare], { userId: uploader.id });
    const renamed = heard(h.db, 'tag_display', rare.id);
    await h.db.update(s.tags).set({ name: 'rare renamed', slug: 'rare+renamed' }).where(eq(s.tags.id, rare.id));
    await renamed;
    expect((await imagePage(q, [a.id, b.id]))[0]!.tags).toEqual(['rare renamed']);
    const userRenamed = heard(h.db, 'user', uploader.id);
    await h.db.update(s.users).set({ name: 'renamed uploader' }).where(eq(s.users.id, uploader.id));
    await userRenamed;
    const page = await imagePage(q, [a.id, b.id]);
    expect(page[0]!.uploader).toBe('renamed uploader');
    expect(page[1]!.description).toBe('b');
  });

  it('hiding or merging one of its images shows at once', async () => {
    const { a, b, q } = await keptPage();
    const change = heard(h.db, 'images', a.id);
    await h.db.update(s.images).set({ hiddenFromUsers: true, duplicateId: b.id }).where(eq(s.images.id, a.id));
    await change;
    const page = await imagePage(q, [a.id, b.id]);
    expect(Object.keys(page[0]!)).toEqual(STUB_KEYS);
    expect(page[0]).toMatchObject({ id: a.id, hidden_from_users: true, duplicate_of: b.id });
    expect(page[1]!.description).toBe('b');
  });

  it('a filter edit shows at once in its spoiler flags', async () => {
    const { a, b, q } = await keptPage([pony]);
    const change = heard(h.db, 'filters', defaultFilter.id);
    await editSystemFilter(h.db, defaultFilter.id, { spoiler: 'pony' });
    await change;
    try {
      expect((await imagePage(q, [a.id, b.id])).map((i) => i.spoilered)).toEqual([true, false]);
    } finally {
      await editSystemFilter(h.db, defaultFilter.id, { spoiler: '' });
    }
  });

  it('an engine answer that changed (an upload, a new order) is made again', async () => {
    const { a, b, q } = await keptPage();
    const c = await insertImage(h.db, { tags: [safe], values: { description: 'c' } });
    await settled();
    expect((await imagePage(q, [c.id, a.id, b.id])).map((i) => i.description)).toEqual(['c', 'a', 'b']);
    expect((await imagePage(q, [b.id, a.id])).map((i) => i.description)).toEqual(['b', 'a']);
  });
});

describe('featured image', () => {
  it('follows a new feature and the hiding of the featured image (its id is read, its JSON cached)', async () => {
    const first = await insertImage(h.db, { tags: [safe] });
    const second = await insertImage(h.db, { tags: [safe] });
    await featureImage(h.db, first.id);
    await settled();
    expect((await h.api('/images/featured')).body.image?.id).toBe(first.id);
    const featured = heard(h.db, 'image_features', second.id);
    await featureImage(h.db, second.id);
    await featured;
    expect((await h.api('/images/featured')).body.image.id).toBe(second.id);
    const change = heard(h.db, 'images', second.id);
    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'x' }).where(eq(s.images.id, second.id));
    await change;
    expect((await h.api('/images/featured')).body.image.id).toBe(first.id);
  });
});

/** The tags search/tags answers when the engine finds `ids`. */
async function searchTags(...ids: number[]) {
  hits.tags = ids;
  const res = await h.api('/search/tags?q=*');
  expect(res.status).toBe(200);
  return res.body.tags as { id: number; description: string; implied_tags: string[]; dnp_entries: { conditions: string }[] }[];
}

describe('rendered tags (search/tags)', () => {
  /** Two tags read once (so both are cached), the second marked by a silent change of its description. */
  async function twoCachedTags() {
    const a = await insertTag(h.db, `tag a ${Math.random()}`, { description: 'a' });
    const b = await insertTag(h.db, `tag b ${Math.random()}`, { description: 'b' });
    await settled();
    expect((await searchTags(a.id, b.id)).map((t) => t.description)).toEqual(['a', 'b']);
    await silently(h.db, sql`update tags set description = 'b, changed silently' where id = ${b.id}`);
    return { a, b };
  }

  it('a tag edit refreshes it, and no other', async () => {
    const { a, b } = await twoCachedTags();
    const change = heard(h.db, 'tags', a.id);
    await h.db.update(s.tags).set({ description: 'a, edited' }).where(eq(s.tags.id, a.id));
    await change;
    expect((await searchTags(a.id, b.id)).map((t) => t.description)).toEqual(['a, edited', 'b']);
  });

  it('a DNP change refreshes its tag, and no other', async () => {
    const { a, b } = await twoCachedTags();
    const change = heard(h.db, 'tag_dnp', a.id);
    await h.db.insert(s.dnpEntries).values({ tagId: a.id, dnpType: 'No Edits', conditions: 'none at all' });
    await change;
    const [tagA, tagB] = await searchTags(a.id, b.id);
    expect(tagA!.dnp_entries.map((e) => e.conditions)).toEqual(['none at all']);
    expect(tagB!.description).toBe('b');
  });

  it('renaming an implied tag refreshes the tags that show its slug, and no other', async () => {
    const implied = await insertTag(h.db, `implied ${Math.random()}`);
    const { a, b } = await twoCachedTags();
    const implication = heard(h.db, 'tags', implied.id);
    await h.db.insert(s.tagImplications).values({ tagId: a.id, impliedTagId: implied.id });
    await implication;
    expect((await searchTags(a.id))[0]!.implied_tags).toEqual([implied.slug]);
    const rename = heard(h.db, 'tags', implied.id);
    await h.db.update(s.tags).set({ name: 'implied renamed', slug: 'implied+renamed' }).where(eq(s.tags.id, implied.id));
    await rename;
    const [tagA, tagB] = await searchTags(a.id, b.id);
    expect(tagA!.implied_tags).toEqual(['implied+renamed']);
    expect(tagB!.description).toBe('b');
  });
});

describe('a tag page (GET /tags/:slug), from the same cache', () => {
  const page = async (slug: string) => {
    const res = await h.api(`/tags/${encodeURIComponent(slug)}`);
    return { status: res.status, tag: res.body.tag as { id: number; name: string; description: string } | undefined };
  };

  it('is answered from memory, and a rename moves it to its new slug; its old slug can name another tag', async () => {
    const a = await insertTag(h.db, `page tag ${Math.random()}`, { description: 'a' });
    await settled();
    expect((await page(a.slug)).tag?.description).toBe('a');
    // unannounced: the cached answer stays (so it is one)
    await silently(h.db, sql`update tags set description = 'a, changed silently' where id = ${a.id}`);
    expect((await page(a.slug)).tag?.description).toBe('a');
    const rename = heard(h.db, 'tags', a.id);
    await h.db.update(s.tags).set({ name: 'page tag renamed', slug: 'page+tag+renamed' }).where(eq(s.tags.id, a.id));
    await rename;
    expect(await page(a.slug)).toMatchObject({ status: 404 });
    expect((await page('page+tag+renamed')).tag).toMatchObject({ id: a.id, name: 'page tag renamed', description: 'a, changed silently' });
    const b = await insertTag(h.db, a.name, { description: 'b' });
    expect(b.slug).toBe(a.slug);
    expect((await page(a.slug)).tag).toMatchObject({ id: b.id, description: 'b' });
  });
});

/** The comments search/comments answers when the engine finds `ids`. */
async function searchComments(...ids: number[]) {
  hits.comments = ids;
  const res = await h.api('/search/comments?q=*');
  expect(res.status).toBe(200);
  return res.body.comments as { id: number; body: string | null; author: string }[];
}

describe('rendered comments (search/comments)', () => {
  /** Two comments read once, the second marked by a silent change of its body. */
  async function twoCachedComments() {
    const author = await insertUser(h.db, { name: `author ${Math.random()}` });
    const image = await insertImage(h.db, { tags: [safe] });
    const other = await insertImage(h.db, { tags: [safe] });
    const [x] = await h.db.insert(s.comments).values({ imageId: image.id, userId: author.id, body: 'x' }).returning();
    const [y] = await h.db.insert(s.comments).values({ imageId: other.id, body: 'y' }).returning();
    await settled();
    expect((await searchComments(x!.id, y!.id)).map((c) => c.body)).toEqual(['x', 'y']);
    await silently(h.db, sql`update comments set body = 'y, changed silently' where id = ${y!.id}`);
    return { x: x!, y: y!, author, image };
  }

  it('a comment edit refreshes it, and no other', async () => {
    const { x, y } = await twoCachedComments();
    const change = heard(h.db, 'comments', x.id);
    await h.db.update(s.comments).set({ body: 'x, edited', editedAt: new Date() }).where(eq(s.comments.id, x.id));
    await change;
    expect((await searchComments(x.id, y.id)).map((c) => c.body)).toEqual(['x, edited', 'y']);
  });

  it('hiding its image withholds the comment; its author’s rename shows; no other comment is read again', async () => {
    const { x, y, author, image } = await twoCachedComments();
    const rename = heard(h.db, 'user', author.id);
    await h.db.update(s.users).set({ name: 'renamed author' }).where(eq(s.users.id, author.id));
    await rename;
    expect((await searchComments(x.id))[0]!.author).toBe('renamed author');
    const hide = heard(h.db, 'images', image.id);
    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'x' }).where(eq(s.images.id, image.id));
    await hide;
    expect((await searchComments(x.id, y.id)).map((c) => c.body)).toEqual([null, 'y']);
  });
});

describe("the caller's key and bans", () => {
  it('a revoked key is anonymous at once; another user’s key stays in memory', async () => {
    const alice = await insertUser(h.db, { name: 'alice', confirmedAt: new Date() });
    const bob = await insertUser(h.db, { name: 'bob', confirmedAt: new Date() });
    const aliceKey = (await issueKey(h.db, 'alice')).key;
    const bobKey = (await issueKey(h.db, 'bob')).key;
    await settled();
    expect((await h.api(`/filters/user?key=${aliceKey}`)).status).toBe(200);
    expect((await h.api(`/filters/user?key=${bobKey}`)).status).toBe(200);
    // bob's key, deactivated silently: while its answer is kept, bob is still let in
    await silently(h.db, sql`update users set deleted_at = now() where id = ${bob.id}`);
    const change = heard(h.db, 'user', alice.id);
    await revokeKey(h.db, aliceKey);
    await change;
    expect((await h.api(`/filters/user?key=${aliceKey}`)).status).toBe(403);
    expect((await h.api(`/filters/user?key=${bobKey}`)).status).toBe(200);
  });

  it('an unknown key becomes its user’s once issued', async () => {
    const carol = await insertUser(h.db, { name: 'carol', confirmedAt: new Date() });
    const issued = await issueKey(h.db, 'carol');
    await settled();
    expect((await h.api(`/filters/user?key=${issued.key}`)).status).toBe(200);
    // a key inserted silently stays unknown (anonymous) until a key change of any user is heard
    const { generateApiKey } = await import('../../src/contexts/users/api-keys.js');
    const silent = generateApiKey();
    expect((await h.api(`/filters/user?key=${silent.key}`)).status).toBe(403);
    await silently(h.db, sql`insert into api_keys (user_id, key_hash, prefix) values (${carol.id}, ${silent.hash}, ${silent.prefix})`);
    expect((await h.api(`/filters/user?key=${silent.key}`)).status).toBe(403);
    const change = heard(h.db, 'user', carol.id);
    await issueKey(h.db, 'carol');
    await change;
    expect((await h.api(`/filters/user?key=${silent.key}`)).status).toBe(200);
  });

  it('a role change applies at once', async () => {
    const dave = await insertUser(h.db, { name: 'dave', confirmedAt: new Date() });
    const owner = await insertUser(h.db, { name: 'owner' });
    const key = (await issueKey(h.db, 'dave')).key;
    // another user's private filter: moderators may view it, plain users not
    const own = await insertFilter(h.db, { name: 'private one', userId: owner.id, public: false });
    await settled();
    const view = async () => (await h.api(`/filters/${own.id}?key=${key}`)).status;
    expect(await view()).toBe(404);
    const change = heard(h.db, 'user', dave.id);
    await setRole(h.db, 'dave', 'moderator');
    await change;
    expect(await view()).toBe(200);
  });

  it('a ban applies at once, and its lifting too', async () => {
    await insertUser(h.db, { name: 'erin', confirmedAt: new Date() });
    const key = (await issueKey(h.db, 'erin')).key;
    await settled();
    expect((await h.api(`/filters/system?key=${key}`)).status).toBe(200);
    const banned = new Promise<number>((resolve) => {
      const stop = changeFeedOf(h.db).subscribe((c) => {
        if (c.kind === 'bans' && 'id' in c) {
          stop();
          resolve(c.id);
        }
      });
    });
    const ban = await banUser(h.db, 'erin', { reason: 'spam', until: null });
    expect(await banned).toBe(ban.id);
    const res = await h.api(`/filters/system?key=${key}`);
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Banned: spam');
    expect((await h.api('/filters/system')).status).toBe(200);
    const lifted = heard(h.db, 'bans', ban.id);
    await unban(h.db, ban.id);
    await lifted;
    expect((await h.api(`/filters/system?key=${key}`)).status).toBe(200);
  });
});
