/**
 * `loadImageData` and `renderInteractions` read raw SQL (src/contexts/images/rows-sql.ts); the
 * drizzle queries they replaced are kept here as the oracle. Their results must be the same,
 * value types and key order included, on a demo board plus images made for the edge cases.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import { loadImageData, type ImageData } from '../../src/contexts/images/load.js';
import { renderInteractions } from '../../src/http/render/images.js';

import { interactionView, type InteractionJson } from '../../src/api/views/interactions.js';
import { seedDemoBoard } from '../../src/seed/demo.js';
import { displayOrder } from '../../src/contexts/tags/display-order.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { insertImage, insertTag, insertUser } from './harness.js';
import type { UserRow } from '../../src/contexts/users/types.js';

/** `loadImageData` as it was, through drizzle: five queries. */
async function oracleImageData(db: Database, ids: readonly number[]): Promise<Map<number, ImageData>> {
  const unique = [...new Set(ids)];
  const result = new Map<number, ImageData>();
  if (unique.length === 0) return result;
  const rows = await db.select().from(s.images).where(inArray(s.images.id, unique)).orderBy(asc(s.images.id));
  if (rows.length === 0) return result;
  const found = rows.map((r) => r.id);
  const uploaderIds = [...new Set(rows.flatMap((r) => (r.userId === null ? [] : [r.userId])))];
  const [tagRows, sourceRows, intensityRows, uploaderRows] = await Promise.all([
    db
      .select({
        imageId: s.imageTaggings.imageId,
        id: s.tags.id,
        name: s.tags.name,
        slug: s.tags.slug,
        category: s.tags.category,
        namespace: s.tags.namespace,
        nameInNamespace: s.tags.nameInNamespace,
      })
      .from(s.imageTaggings)
      .innerJoin(s.tags, eq(s.tags.id, s.imageTaggings.tagId))
      .where(inArray(s.imageTaggings.imageId, found))
      .orderBy(asc(s.imageTaggings.position), asc(s.tags.id)),
    db.select().from(s.imageSources).where(inArray(s.imageSources.imageId, found)).orderBy(asc(s.imageSources.position), asc(s.imageSources.source)),
    db.select().from(s.imageIntensities).where(inArray(s.imageIntensities.imageId, found)),
    uploaderIds.length === 0 ? Promise.resolve([]) : db.select({ id: s.users.id, name: s.users.name }).from(s.users).where(inArray(s.users.id, uploaderIds)),
  ]);
  const uploaders = new Map(uploaderRows.map((u) => [u.id, u.name]));
  for (const image of rows) {
    result.set(image.id, {
      image,
      tags: [],
      sources: [],
      intensities: null,
      uploaderName: image.userId === null ? null : (uploaders.get(image.userId) ?? null),
    });
  }
  for (const { imageId, ...tag } of tagRows) result.get(imageId)?.tags.push(tag);
  for (const r of sourceRows) result.get(r.imageId)?.sources.push(r.source);
  for (const i of intensityRows) {
    const data = result.get(i.imageId);
    if (data) data.intensities = { nw: i.nw, ne: i.ne, sw: i.sw, se: i.se };
  }
  for (const data of result.values()) data.tags = displayOrder(data.tags);
  return result;
}

/** `renderInteractions` as it was: three drizzle queries. */
async function oracleInteractions(db: Database, user: UserRow, imageIds: readonly number[]): Promise<InteractionJson[]> {
  const ids = [...new Set(imageIds)];
  const [hides, faves, votes] = await Promise.all([
    db.select({ imageId: s.imageHides.imageId }).from(s.imageHides).where(and(eq(s.imageHides.userId, user.id), inArray(s.imageHides.imageId, ids))).orderBy(asc(s.imageHides.imageId)),
    db.select({ imageId: s.imageFaves.imageId }).from(s.imageFaves).where(and(eq(s.imageFaves.userId, user.id), inArray(s.imageFaves.imageId, ids))).orderBy(asc(s.imageFaves.imageId)),
    db.select({ imageId: s.imageVotes.imageId, up: s.imageVotes.up }).from(s.imageVotes).where(and(eq(s.imageVotes.userId, user.id), inArray(s.imageVotes.imageId, ids))).orderBy(asc(s.imageVotes.imageId)),
  ]);
  return [
    ...hides.map((h) => interactionView(h.imageId, user.id, 'hidden')),
    ...faves.map((f) => interactionView(f.imageId, user.id, 'faved')),
    ...votes.map((v) => interactionView(v.imageId, user.id, 'voted', v.up ? 'up' : 'down')),
  ];
}

/** Same values and types (`toStrictEqual`: Dates stay Dates, no undefined keys) and same key order. */
function expectSame<T>(actual: T, expected: T): void {
  expect(actual).toStrictEqual(expected);
  expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
}

const entries = (m: Map<number, ImageData>) => [...m.entries()];

let t: TestDatabase;
let db: Database;
/** Every image of the board. */
let allIds: number[];
/** The edge cases, by name. */
const edge: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestDatabase();
  db = t.db;
  await seedDemoBoard(db, { images: 60, withFiles: false, seed: 5 });

  const uploader = await insertUser(db, { name: 'Edge Uploader' });
  const quoteName = await insertUser(db, { name: `O'Brien "the" \\ uploader` });
  const safe = await insertTag(db, 'edge safe', { category: 'rating' });
  const artist = await insertTag(db, 'artist:edge painter', { category: 'origin' });
  const plain = await insertTag(db, 'edge plain');
  const nameless = await insertTag(db, 'oc:edge pony', { category: 'oc' });

  edge.bare = (await insertImage(db)).id; // no uploader, no tags, no sources, no intensities
  edge.anonymous = (await insertImage(db, { values: { userId: uploader.id, anonymous: true }, tags: [plain] })).id;
  edge.quoted = (await insertImage(db, { values: { userId: quoteName.id, ip: '2001:db8::1', fingerprint: 'c1234' } })).id;
  edge.sources = (
    await insertImage(db, {
      values: { userId: uploader.id, ip: '10.1.2.3' },
      tags: [plain, artist, safe, nameless],
      sources: ['https://z.example/last', 'https://a.example/first', 'https://m.example/middle'],
    })
  ).id;
  edge.deleted = (
    await insertImage(db, { values: { hiddenFromUsers: true, deletionReason: 'Rule #1', deletedById: uploader.id, approved: false }, tags: [safe] })
  ).id;
  edge.merged = (await insertImage(db, { values: { hiddenFromUsers: true, duplicateId: edge.sources, destroyedContent: true } })).id;
  edge.animated = (
    await insertImage(db, {
      values: {
        imageFormat: 'webm',
        imageMimeType: 'video/webm',
        isAnimated: true,
        imageDuration: 12.345678901234567,
        imageAspectRatio: 16 / 9,
        storageKey: '2024/1/2/1/full.webm',
        scratchpad: 'mod note',
        processed: false,
        thumbnailsGenerated: false,
        duplicationChecked: true,
      },
      tags: [safe, artist],
    })
  ).id;
  // Equal positions: tags fall back to id order and sources to text order.
  edge.ties = (await insertImage(db, { sources: ['https://b.example', 'https://a.example'] })).id;
  await db.insert(s.imageTaggings).values([nameless, plain, safe].map((tag) => ({ imageId: edge.ties!, tagId: tag.id, position: 0 })));
  await db.update(s.imageSources).set({ position: 3 }).where(eq(s.imageSources.imageId, edge.ties));
  // Positions not in insertion order.
  await db.update(s.imageSources).set({ position: sql`2 - ${s.imageSources.position}` }).where(eq(s.imageSources.imageId, edge.sources));

  await db.insert(s.imageIntensities).values([
    { imageId: edge.sources, nw: 0.1, ne: 255, sw: 1 / 3, se: 0 },
    { imageId: edge.animated, nw: 12.5, ne: 13.25, sw: 99.999999999, se: 100 },
  ]);
  // Microseconds and a non-UTC offset in the stored timestamps.
  await db.execute(sql`update images set created_at = '2020-02-29 23:59:59.123456+05:30',
    first_seen_at = '1999-12-31 00:00:00.000001+00', updated_at = '2021-06-01 12:00:00.9999+00' where id = ${edge.animated}`);

  allIds = (await db.select({ id: s.images.id }).from(s.images).orderBy(asc(s.images.id))).map((r) => r.id);
}, 120_000);

afterAll(async () => {
  await t?.drop();
});

describe('loadImageData (raw SQL)', () => {
  it('gives exactly what the drizzle queries gave, for every image of the board', async () => {
    expect(allIds.length).toBeGreaterThan(60);
    expectSame(entries(await loadImageData(db, allIds)), entries(await oracleImageData(db, allIds)));
  });

  it('covers the edge cases, one at a time and together', async () => {
    for (const id of Object.values(edge)) {
      expectSame(entries(await loadImageData(db, [id])), entries(await oracleImageData(db, [id])));
    }
    const data = await loadImageData(db, Object.values(edge));
    expect(data.get(edge.bare!)).toMatchObject({ tags: [], sources: [], intensities: null, uploaderName: null, image: { userId: null, ip: null } });
    expect(data.get(edge.quoted!)).toMatchObject({ uploaderName: `O'Brien "the" \\ uploader`, image: { ip: '2001:db8::1' } });
    expect(data.get(edge.sources!)!.sources).toEqual(['https://m.example/middle', 'https://a.example/first', 'https://z.example/last']);
    expect(data.get(edge.sources!)!.intensities).toStrictEqual({ nw: 0.1, ne: 255, sw: 1 / 3, se: 0 });
    expect(data.get(edge.ties!)!.sources).toEqual(['https://a.example', 'https://b.example']);
    const animated = data.get(edge.animated!)!.image;
    expect(animated.imageDuration).toBe(12.345678901234567);
    expect(animated.createdAt).toStrictEqual(new Date('2020-02-29T18:29:59.123Z'));
    expect(data.get(edge.merged!)!.image).toMatchObject({ hiddenFromUsers: true, duplicateId: edge.sources, destroyedContent: true });
  });

  it('drops unknown ids and repeats, and takes an empty list', async () => {
    const ids = [999_999, edge.sources!, allIds[0]!, edge.sources!, 123_456];
    expectSame(entries(await loadImageData(db, ids)), entries(await oracleImageData(db, ids)));
    expect([...(await loadImageData(db, ids)).keys()]).toEqual([allIds[0], edge.sources]);
    expect((await loadImageData(db, [999_999])).size).toBe(0);
    expect((await loadImageData(db, [])).size).toBe(0);
  });
});

describe('renderInteractions (one round trip)', () => {
  it('gives hides, faves and votes in that order, each by image id, like the three queries did', async () => {
    const user = await insertUser(db, { name: 'Interactor' });
    const other = await insertUser(db, { name: 'Someone Else' });
    const [a, b, c, d] = allIds.slice(-4) as [number, number, number, number];
    await db.insert(s.imageHides).values([{ imageId: c, userId: user.id }, { imageId: a, userId: user.id }, { imageId: b, userId: other.id }]);
    await db.insert(s.imageFaves).values([{ imageId: d, userId: user.id }, { imageId: b, userId: user.id }, { imageId: a, userId: other.id }]);
    await db.insert(s.imageVotes).values([
      { imageId: d, userId: user.id, up: false },
      { imageId: a, userId: user.id, up: true },
      { imageId: c, userId: other.id, up: true },
    ]);
    const ids = [d, c, b, a, d, 999_999];
    const got = await renderInteractions(db, user, ids);
    expectSame(got, await oracleInteractions(db, user, ids));
    expect(got.map((i) => [i.interaction_type, i.image_id, i.value])).toEqual([
      ['hidden', a, ''],
      ['hidden', c, ''],
      ['faved', b, ''],
      ['faved', d, ''],
      ['voted', a, 'up'],
      ['voted', d, 'down'],
    ]);
    expect(await renderInteractions(db, other, [a])).toEqual(await oracleInteractions(db, other, [a]));
    expect(await renderInteractions(db, null, ids)).toEqual([]);
    expect(await renderInteractions(db, user, [])).toEqual([]);
  });
});
