import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import * as s from '../../src/db/schema/index.js';
import { assertResource } from '../support/resources.js';
import { HIDDEN_IMAGE, IMAGE, INTERACTION } from '../support/spec-shapes.js';
import { CDN_URL, insertFilter, insertImage, insertKey, insertTag, insertUser, iso, startHarness, ymd, type Harness } from './harness.js';

let h: Harness;
const created = new Date('2024-03-05T06:07:08.123Z');
const updated = new Date('2024-03-06T01:02:03.999Z');
const firstSeen = new Date('2024-03-04T23:59:59.000Z');

let safe: typeof s.tags.$inferSelect;
let questionable: typeof s.tags.$inferSelect;
let explicit: typeof s.tags.$inferSelect;
let solo: typeof s.tags.$inferSelect;
let artist: typeof s.tags.$inferSelect;
let twilight: typeof s.tags.$inferSelect;
let pony: typeof s.tags.$inferSelect;
let defaultFilter: typeof s.filters.$inferSelect;
let everything: typeof s.filters.$inferSelect;

beforeAll(async () => {
  h = await startHarness();
  safe = await insertTag(h.db, 'safe', { category: 'rating' });
  questionable = await insertTag(h.db, 'questionable', { category: 'rating' });
  explicit = await insertTag(h.db, 'explicit', { category: 'rating' });
  solo = await insertTag(h.db, 'solo');
  artist = await insertTag(h.db, 'artist:hoofbeats', { category: 'origin' });
  twilight = await insertTag(h.db, 'twilight sparkle', { category: 'character' });
  pony = await insertTag(h.db, 'pony', { category: 'species' });
  defaultFilter = await insertFilter(h.db, {
    name: 'Default',
    system: true,
    hiddenTagIds: [explicit.id],
    spoileredTagIds: [questionable.id],
  });
  everything = await insertFilter(h.db, { name: 'Everything', system: true });
});

afterAll(async () => {
  await h?.close();
});

describe('GET /images/:image_id', () => {
  it('answers the exact body of a 100×100 PNG tagged safe with two sources (anonymous)', async () => {
    const image = await insertImage(h.db, {
      values: { createdAt: created, updatedAt: updated, firstSeenAt: firstSeen },
      tags: [safe],
      sources: ['https://example.com/art/1', 'https://example.com/art/2'],
    });
    const res = await h.api(`/images/${image.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const p = `${CDN_URL}/img/2024/3/5/${image.id}`;
    expect(res.body).toStrictEqual({
      interactions: [],
      image: {
        id: image.id,
        created_at: '2024-03-05T06:07:08Z',
        updated_at: '2024-03-06T01:02:03Z',
        first_seen_at: '2024-03-04T23:59:59Z',
        width: 100,
        height: 100,
        mime_type: 'image/png',
        size: 1024,
        orig_size: 1024,
        duration: 0.04,
        animated: false,
        format: 'png',
        aspect_ratio: 1,
        name: 'test.png',
        sha512_hash: 'a'.repeat(128),
        orig_sha512_hash: 'b'.repeat(128),
        tags: ['safe'],
        tag_ids: [safe.id],
        tag_count: 1,
        uploader: null,
        uploader_id: null,
        wilson_score: 0,
        intensities: null,
        score: 0,
        upvotes: 0,
        downvotes: 0,
        faves: 0,
        hides: 0,
        comment_count: 0,
        description: '',
        source_url: 'https://example.com/art/1',
        source_urls: ['https://example.com/art/1', 'https://example.com/art/2'],
        view_url: `${CDN_URL}/img/view/2024/3/5/${image.id}__safe.png`,
        representations: {
          thumb_tiny: `${p}/thumb_tiny.png`,
          thumb_small: `${p}/full.png`,
          thumb: `${p}/full.png`,
          small: `${p}/full.png`,
          medium: `${p}/full.png`,
          large: `${p}/full.png`,
          tall: `${p}/full.png`,
          full: `${CDN_URL}/img/view/2024/3/5/${image.id}.png`,
        },
        spoilered: false,
        thumbnails_generated: true,
        processed: true,
        deletion_reason: null,
        duplicate_of: null,
        hidden_from_users: false,
      },
    });
    assertResource(res.body.image, IMAGE);
  });

  it('lists tags and tag_ids in display order and builds view_url from their slugs', async () => {
    const image = await insertImage(h.db, { tags: [solo, pony, twilight, artist, safe] });
    const { body } = await h.api(`/images/${image.id}`);
    expect(body.image.tags).toEqual(['safe', 'artist:hoofbeats', 'twilight sparkle', 'pony', 'solo']);
    expect(body.image.tag_ids).toEqual([safe.id, artist.id, twilight.id, pony.id, solo.id]);
    expect(body.image.tag_count).toBe(5);
    expect(body.image.view_url).toBe(
      `${CDN_URL}/img/view/${ymd(image.createdAt)}/${image.id}__safe_artist-colon-hoofbeats_twilight+sparkle_pony_solo.png`,
    );
    assertResource(body.image, IMAGE);
  });

  it('truncates the slug part of view_url to 151 characters', async () => {
    const long = await insertTag(h.db, `${'x'.repeat(120)} long`);
    const longer = await insertTag(h.db, `${'y'.repeat(120)} longer`);
    const image = await insertImage(h.db, { tags: [long, longer] });
    const { body } = await h.api(`/images/${image.id}`);
    const file = body.image.view_url.split('/').pop() as string;
    expect(file).toBe(`${image.id}__${`${long.slug}_${longer.slug}`.slice(0, 151)}.png`);
  });

  it('gives a large JPEG its own file for every version it exceeds', async () => {
    const image = await insertImage(h.db, {
      values: { imageWidth: 2000, imageHeight: 1500, imageFormat: 'jpg', imageMimeType: 'image/jpeg', imageAspectRatio: 2000 / 1500 },
      tags: [safe],
    });
    const { body } = await h.api(`/images/${image.id}`);
    const p = `${CDN_URL}/img/${ymd(image.createdAt)}/${image.id}`;
    expect(body.image.representations).toStrictEqual({
      thumb_tiny: `${p}/thumb_tiny.jpg`,
      thumb_small: `${p}/thumb_small.jpg`,
      thumb: `${p}/thumb.jpg`,
      small: `${p}/small.jpg`,
      medium: `${p}/medium.jpg`,
      large: `${p}/large.jpg`,
      tall: `${p}/tall.jpg`,
      full: `${CDN_URL}/img/view/${ymd(image.createdAt)}/${image.id}.jpg`,
    });
    expect(body.image.aspect_ratio).toBeCloseTo(1.3333333, 6);
  });

  it('adds webm and mp4 for gifs and reports the duration of animated images', async () => {
    const image = await insertImage(h.db, {
      values: { imageFormat: 'gif', imageMimeType: 'image/gif', isAnimated: true, imageDuration: 1.5, imageWidth: 300, imageHeight: 200, imageAspectRatio: 1.5 },
      tags: [safe],
    });
    const { body } = await h.api(`/images/${image.id}`);
    const p = `${CDN_URL}/img/${ymd(image.createdAt)}/${image.id}`;
    expect(body.image.animated).toBe(true);
    expect(body.image.duration).toBe(1.5);
    expect(body.image.representations.webm).toBe(`${p}/full.webm`);
    expect(body.image.representations.mp4).toBe(`${p}/full.mp4`);
    expect(body.image.representations.thumb).toBe(`${p}/thumb.gif`);
    expect(body.image.representations.medium).toBe(`${p}/full.gif`);
    assertResource(body.image, IMAGE);
  });

  it('uses png files for svg images and webm files for webm videos', async () => {
    const svg = await insertImage(h.db, { values: { imageFormat: 'svg', imageMimeType: 'image/svg+xml', imageWidth: 400, imageHeight: 400 }, tags: [safe] });
    const webm = await insertImage(h.db, {
      values: { imageFormat: 'webm', imageMimeType: 'video/webm', isAnimated: true, imageDuration: 3.2, imageWidth: 640, imageHeight: 360 },
      tags: [safe],
    });
    const a = (await h.api(`/images/${svg.id}`)).body.image;
    expect(a.view_url).toBe(`${CDN_URL}/img/view/${ymd(svg.createdAt)}/${svg.id}__safe.png`);
    expect(a.representations.thumb).toBe(`${CDN_URL}/img/${ymd(svg.createdAt)}/${svg.id}/thumb.png`);
    expect(a.representations.full).toBe(`${CDN_URL}/img/view/${ymd(svg.createdAt)}/${svg.id}.png`);
    expect(a.format).toBe('svg');
    expect(a.duration).toBe(0.04);
    const b = (await h.api(`/images/${webm.id}`)).body.image;
    expect(Object.values(b.representations).every((u) => String(u).endsWith('.webm'))).toBe(true);
    expect(b.representations).not.toHaveProperty('mp4');
    expect(b.duration).toBe(3.2);
  });

  it('names the uploader unless the upload is anonymous, and reports votes, wilson score and intensities', async () => {
    const uploader = await insertUser(h.db, { name: 'Uploader Pony' });
    const shown = await insertImage(h.db, {
      values: { userId: uploader.id, upvotesCount: 10, downvotesCount: 2, score: 8, favesCount: 4, hidesCount: 1, commentsCount: 3, description: 'A *pony*.' },
      tags: [safe],
    });
    await h.db.insert(s.imageIntensities).values({ imageId: shown.id, nw: 0.25, ne: 0.5, sw: 0.75, se: 1 });
    const hidden = await insertImage(h.db, { values: { userId: uploader.id, anonymous: true }, tags: [safe] });
    const a = (await h.api(`/images/${shown.id}`)).body.image;
    expect(a.uploader).toBe('Uploader Pony');
    expect(a.uploader_id).toBe(uploader.id);
    expect([a.upvotes, a.downvotes, a.score, a.faves, a.hides, a.comment_count]).toEqual([10, 2, 8, 4, 1, 3]);
    expect(a.description).toBe('A *pony*.');
    const n = 12;
    const pHat = 10 / n;
    const z = 2.57583;
    const expected = (pHat + (z * z) / (2 * n) - z * Math.sqrt((pHat * (1 - pHat) + (z * z) / (4 * n)) / n)) / (1 + (z * z) / n);
    expect(a.wilson_score).toBeCloseTo(expected, 9);
    expect(a.intensities).toStrictEqual({ nw: 0.25, ne: 0.5, sw: 0.75, se: 1 });
    assertResource(a, IMAGE);
    const b = (await h.api(`/images/${hidden.id}`)).body.image;
    expect(b.uploader).toBeNull();
    expect(b.uploader_id).toBeNull();
    expect(b.source_url).toBe('');
    expect(b.source_urls).toEqual([]);
  });

  it('answers a deleted image and a merged one as the reference stub, whatever filter or key asks', async () => {
    const target = await insertImage(h.db, { tags: [safe] });
    const times = { createdAt: created, updatedAt: updated, firstSeenAt: firstSeen };
    const uploader = await insertUser(h.db, { name: 'Rule Breaker' });
    const merged = await insertImage(h.db, {
      values: { ...times, hiddenFromUsers: true, duplicateId: target.id, deletionReason: 'Duplicate', userId: uploader.id },
      tags: [safe],
      sources: ['https://example.com/merged'],
    });
    const deleted = await insertImage(h.db, {
      values: { ...times, hiddenFromUsers: true, deletionReason: 'Rule #1', description: 'secret text', userId: uploader.id },
      tags: [explicit, solo],
    });
    const stamps = { created_at: '2024-03-05T06:07:08Z', updated_at: '2024-03-06T01:02:03Z', first_seen_at: '2024-03-04T23:59:59Z' };
    const moderator = await insertUser(h.db, { role: 'moderator' });
    const moderatorKey = await insertKey(h.db, moderator.id);
    for (const query of ['', `?filter_id=${everything.id}`, `?key=${moderatorKey}`]) {
      const a = await h.api(`/images/${merged.id}${query}`);
      expect(a.status).toBe(200);
      expect(a.body).toStrictEqual({
        image: { id: merged.id, ...stamps, deletion_reason: null, duplicate_of: target.id, hidden_from_users: true },
        interactions: [],
      });
      assertResource(a.body.image, HIDDEN_IMAGE);
      const b = await h.api(`/images/${deleted.id}${query}`);
      expect(b.status).toBe(200);
      expect(b.body.image).toStrictEqual({ id: deleted.id, ...stamps, deletion_reason: 'Rule #1', duplicate_of: null, hidden_from_users: true });
      assertResource(b.body.image, HIDDEN_IMAGE);
      expect(JSON.stringify(b.body)).not.toMatch(/secret text|Rule Breaker|\/img\/|explicit|solo/);
    }
  });

  it('ignores merge and deletion columns of visible images', async () => {
    const image = await insertImage(h.db, { values: { duplicateId: 1, deletionReason: 'old' }, tags: [safe] });
    const { body } = await h.api(`/images/${image.id}`);
    expect(body.image).toMatchObject({ hidden_from_users: false, duplicate_of: null, deletion_reason: null });
  });

  it.each(['999999', 'abc', '1.5', '-1', '0', '2147483648', '99999999999999999999', '1e3', '%20', '12abc'])(
    'answers 404 {"error":"Not found"} for id %s',
    async (id) => {
      const res = await h.api(`/images/${id}`);
      expect(res.status).toBe(404);
      expect(res.body).toStrictEqual({ error: 'Not found' });
    },
  );

  it('lists the key user interactions', async () => {
    const user = await insertUser(h.db);
    const key = await insertKey(h.db, user.id);
    const image = await insertImage(h.db, { tags: [safe] });
    await h.db.insert(s.imageFaves).values({ imageId: image.id, userId: user.id });
    await h.db.insert(s.imageVotes).values({ imageId: image.id, userId: user.id, up: true });
    await h.db.insert(s.imageHides).values({ imageId: image.id, userId: user.id });
    const { body, headers } = await h.api(`/images/${image.id}?key=${key}`);
    expect(body.interactions).toStrictEqual([
      { image_id: image.id, user_id: user.id, interaction_type: 'hidden', value: '' },
      { image_id: image.id, user_id: user.id, interaction_type: 'faved', value: '' },
      { image_id: image.id, user_id: user.id, interaction_type: 'voted', value: 'up' },
    ]);
    for (const i of body.interactions) assertResource(i, INTERACTION);
    expect(headers.get('cache-control')).toBe('private, max-age=60');
  });
});

describe('spoilered', () => {
  it('follows the Default filter for anonymous callers: spoilered and hidden tags both count', async () => {
    const a = await insertImage(h.db, { tags: [safe] });
    const b = await insertImage(h.db, { tags: [questionable, solo] });
    const c = await insertImage(h.db, { tags: [explicit] });
    expect((await h.api(`/images/${a.id}`)).body.image.spoilered).toBe(false);
    expect((await h.api(`/images/${b.id}`)).body.image.spoilered).toBe(true);
    expect((await h.api(`/images/${c.id}`)).body.image.spoilered).toBe(true);
  });

  it('uses filter_id when the caller may view that filter, and ignores it otherwise', async () => {
    const owner = await insertUser(h.db);
    const ownerKey = await insertKey(h.db, owner.id);
    const stranger = await insertUser(h.db);
    const strangerKey = await insertKey(h.db, stranger.id);
    const moderator = await insertUser(h.db, { role: 'moderator' });
    const moderatorKey = await insertKey(h.db, moderator.id);
    const privateFilter = await insertFilter(h.db, { name: 'mine', userId: owner.id, spoileredTagIds: [solo.id] });
    const publicFilter = await insertFilter(h.db, { name: 'shared', userId: owner.id, public: true, spoileredTagIds: [solo.id] });
    const q = await insertImage(h.db, { tags: [questionable] });
    const soloImage = await insertImage(h.db, { tags: [safe, solo] });
    const spoilered = async (id: number, query: string) => (await h.api(`/images/${id}${query}`)).body.image.spoilered;

    expect(await spoilered(q.id, `?filter_id=${everything.id}`)).toBe(false);
    expect(await spoilered(q.id, `?filter_id=${defaultFilter.id}`)).toBe(true);
    // Not visible to anonymous callers or strangers: ignored, the Default filter applies.
    expect(await spoilered(soloImage.id, `?filter_id=${privateFilter.id}`)).toBe(false);
    expect(await spoilered(soloImage.id, `?filter_id=${privateFilter.id}&key=${strangerKey}`)).toBe(false);
    // Own, public, or any filter for a moderator.
    expect(await spoilered(soloImage.id, `?filter_id=${privateFilter.id}&key=${ownerKey}`)).toBe(true);
    expect(await spoilered(soloImage.id, `?filter_id=${publicFilter.id}`)).toBe(true);
    expect(await spoilered(soloImage.id, `?filter_id=${privateFilter.id}&key=${moderatorKey}`)).toBe(true);
    // Malformed or unknown ids are ignored, never an error.
    for (const bad of ['abc', '-1', '1.5', '99999999999', '999999', '']) {
      const res = await h.api(`/images/${q.id}?filter_id=${bad}`);
      expect(res.status).toBe(200);
      expect(res.body.image.spoilered).toBe(true);
    }
  });

  it("uses the key user's current filter, else Default", async () => {
    const withFilter = await insertUser(h.db, { currentFilterId: everything.id });
    const withoutFilter = await insertUser(h.db);
    const q = await insertImage(h.db, { tags: [questionable] });
    expect((await h.api(`/images/${q.id}?key=${await insertKey(h.db, withFilter.id)}`)).body.image.spoilered).toBe(false);
    expect((await h.api(`/images/${q.id}?key=${await insertKey(h.db, withoutFilter.id)}`)).body.image.spoilered).toBe(true);
    expect((await h.api(`/images/${q.id}?key=not-a-real-key`)).body.image.spoilered).toBe(true);
  });

  describe('complex expressions (evaluated against the image document with OpenSearch semantics)', () => {
    const spoileredWith = async (filter: Partial<typeof s.filters.$inferInsert>, imageId: number) => {
      const f = await insertFilter(h.db, { name: 'complex', public: true, ...filter });
      return (await h.api(`/images/${imageId}?filter_id=${f.id}`)).body.image.spoilered as boolean;
    };

    it('spoilers by a spoilered complex expression on numeric fields', async () => {
      const high = await insertImage(h.db, { values: { score: 20, upvotesCount: 20 }, tags: [safe] });
      const low = await insertImage(h.db, { values: { score: 5, upvotesCount: 5 }, tags: [safe] });
      expect(await spoileredWith({ spoileredComplexStr: 'score.gt:10' }, high.id)).toBe(true);
      expect(await spoileredWith({ spoileredComplexStr: 'score.gt:10' }, low.id)).toBe(false);
    });

    it('spoilers by a hidden complex expression on tags', async () => {
      const withSolo = await insertImage(h.db, { tags: [safe, solo] });
      const without = await insertImage(h.db, { tags: [safe] });
      expect(await spoileredWith({ hiddenComplexStr: 'solo' }, withSolo.id)).toBe(true);
      expect(await spoileredWith({ hiddenComplexStr: 'solo' }, without.id)).toBe(false);
    });

    it('gives AND and NOT their intended meaning (not the reference evaluator defects)', async () => {
      const both = await insertImage(h.db, { tags: [safe, solo] });
      const one = await insertImage(h.db, { tags: [safe] });
      expect(await spoileredWith({ spoileredComplexStr: 'safe, solo' }, both.id)).toBe(true);
      expect(await spoileredWith({ spoileredComplexStr: 'safe, solo' }, one.id)).toBe(false);
      expect(await spoileredWith({ spoileredComplexStr: '-solo' }, one.id)).toBe(true);
      expect(await spoileredWith({ spoileredComplexStr: '-solo' }, both.id)).toBe(false);
      expect(await spoileredWith({ spoileredComplexStr: 'tag_count.lt:2' }, one.id)).toBe(true);
    });

    it('compares dates as instants', async () => {
      const image = await insertImage(h.db, { values: { createdAt: new Date('2020-01-01T00:00:00Z') }, tags: [safe] });
      expect(await spoileredWith({ spoileredComplexStr: 'created_at.gte:2019-06-15' }, image.id)).toBe(true);
      expect(await spoileredWith({ spoileredComplexStr: 'created_at.gte:2021' }, image.id)).toBe(false);
    });

    it('reads multi-line expressions as an OR of their lines', async () => {
      const image = await insertImage(h.db, { tags: [safe, pony] });
      expect(await spoileredWith({ spoileredComplexStr: 'nothing here\npony' }, image.id)).toBe(true);
      expect(await spoileredWith({ spoileredComplexStr: 'nothing here\r\n\r\nsolo' }, image.id)).toBe(false);
    });

    it('ignores an expression that does not compile instead of spoilering everything', async () => {
      const image = await insertImage(h.db, { tags: [safe] });
      expect(await spoileredWith({ spoileredComplexStr: '(((safe' }, image.id)).toBe(false);
      expect(await spoileredWith({ hiddenComplexStr: 'safe AND (', spoileredComplexStr: 'safe' }, image.id)).toBe(true);
    });
  });
});

describe('GET /images/featured', () => {
  it('answers the newest feature whose image is not hidden', async () => {
    const none = await h.api('/images/featured');
    expect(none.status).toBe(404);
    expect(none.body).toStrictEqual({ error: 'Not found' });

    const old = await insertImage(h.db, { tags: [safe] });
    const newer = await insertImage(h.db, { tags: [safe] });
    const hiddenOne = await insertImage(h.db, { values: { hiddenFromUsers: true, deletionReason: 'gone' }, tags: [safe] });
    await h.db.insert(s.imageFeatures).values([
      { imageId: old.id, createdAt: new Date('2024-01-01T00:00:00Z') },
      { imageId: newer.id, createdAt: new Date('2024-02-01T00:00:00Z') },
      { imageId: hiddenOne.id, createdAt: new Date('2024-03-01T00:00:00Z') },
    ]);
    // the featured image is cached: wait until the new features are heard
    await recordChangeFeedOf(h.db).sync();
    const res = await h.api('/images/featured');
    expect(res.status).toBe(200);
    expect(res.body.image.id).toBe(newer.id);
    expect(res.body.interactions).toEqual([]);
    assertResource(res.body.image, IMAGE);
    const direct = await h.api(`/images/${newer.id}`);
    expect(res.body).toStrictEqual(direct.body);
    await h.db.delete(s.imageFeatures).where(eq(s.imageFeatures.imageId, newer.id));
    await recordChangeFeedOf(h.db).sync();
    expect((await h.api('/images/featured')).body.image.id).toBe(old.id);
    // the featured image deleted: no visible feature is left, and nothing of it is answered
    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'Rule #2' }).where(eq(s.images.id, old.id));
    await recordChangeFeedOf(h.db).sync();
    expect(await h.api('/images/featured')).toMatchObject({ status: 404, body: { error: 'Not found' } });
  });
});

describe('timestamps', () => {
  it('writes every timestamp as YYYY-MM-DDTHH:MM:SSZ', async () => {
    const image = await insertImage(h.db, { tags: [safe] });
    const { body } = await h.api(`/images/${image.id}`);
    expect(body.image.created_at).toBe(iso(image.createdAt));
    expect(body.image.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });
});
