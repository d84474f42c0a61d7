import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  imageFingerprints,
  galleries, galleryInteractions, imageFaves, imageHides, images, imageSources, imageSubscriptions,
  imageTaggings, imageVotes, tags, users,
} from '../../src/db/schema/index.js';
import { loadImageDocuments, wilsonScore } from '../../src/contexts/search/documents/images-documents.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const at = (s: string) => new Date(s);

describe('image documents', () => {
  it('builds the whole document of a tagged, voted, faved image in galleries', async () => {
    const { db } = t;
    const [alice, bob, carol, mod] = await db.insert(users).values([
      { name: 'Alice', slug: 'alice' },
      { name: 'Bob', slug: 'bob' },
      { name: 'Carol', slug: 'carol' },
      { name: 'Mod', slug: 'mod', role: 'moderator' },
    ]).returning();
    const [safe, solo, ts, oc] = await db.insert(tags).values([
      { name: 'safe', slug: 'safe', nameInNamespace: 'safe', category: 'rating' },
      { name: 'solo', slug: 'solo', nameInNamespace: 'solo' },
      { name: 'twilight sparkle', slug: 'twilight+sparkle', nameInNamespace: 'twilight sparkle', category: 'character' },
      { name: 'oc:blue', slug: 'oc-colon-blue', namespace: 'oc', nameInNamespace: 'blue', category: 'oc' },
    ]).returning();
    await db.insert(tags).values([
      { name: 'ts', slug: 'ts', nameInNamespace: 'ts', aliasedTagId: ts!.id },
      { name: 'twi', slug: 'twi', nameInNamespace: 'twi', aliasedTagId: ts!.id },
      { name: 'sfw', slug: 'sfw', nameInNamespace: 'sfw', aliasedTagId: safe!.id },
    ]);
    const [img] = await db.insert(images).values({
      userId: alice!.id, ip: '10.1.2.3', fingerprint: 'c1234', imageName: 'Pic.PNG',
      imageWidth: 800, imageHeight: 600, imageSize: 1000, imageOrigSize: 1200, imageFormat: 'png',
      imageMimeType: 'image/png', imageAspectRatio: 800 / 600, imageDuration: 0.04, isAnimated: false,
      imageSha512Hash: 'abc', imageOrigSha512Hash: 'def', description: 'A *pony*', score: 1,
      upvotesCount: 2, downvotesCount: 1, favesCount: 2, hidesCount: 1, commentsCount: 3,
      deletedById: mod!.id, scratchpad: 'note', duplicateId: null, processed: true,
      thumbnailsGenerated: true, firstSeenAt: at('2024-01-02T03:04:05Z'), createdAt: at('2024-01-02T03:04:05Z'),
      updatedAt: at('2024-02-03T04:05:06.789Z'),
    }).returning();
    const imageId = img!.id;
    await db.insert(imageTaggings).values([
      { imageId, tagId: safe!.id, position: 0 },
      { imageId, tagId: ts!.id, position: 1 },
      { imageId, tagId: solo!.id, position: 2 },
      { imageId, tagId: oc!.id, position: 3 },
    ]);
    await db.insert(imageSources).values([
      { imageId, source: 'https://Example.com/Art/1', position: 0 },
      { imageId, source: 'https://example.com/art/2', position: 1 },
    ]);
    await db.insert(imageFaves).values([{ imageId, userId: carol!.id }, { imageId, userId: bob!.id }]);
    await db.insert(imageHides).values([{ imageId, userId: mod!.id }]);
    await db.insert(imageVotes).values([
      { imageId, userId: bob!.id, up: true },
      { imageId, userId: carol!.id, up: true },
      { imageId, userId: mod!.id, up: false },
    ]);
    await db.insert(imageSubscriptions).values([{ imageId, userId: alice!.id }]);
    const [g1, g2] = await db.insert(galleries).values([
      { title: 'One', thumbnailId: imageId, creatorId: bob!.id },
      { title: 'Two', thumbnailId: imageId, creatorId: carol!.id },
    ]).returning();
    await db.insert(galleryInteractions).values([
      { galleryId: g1!.id, imageId, position: 4 },
      { galleryId: g2!.id, imageId, position: 0 },
    ]);

    await db.insert(imageFingerprints).values({ imageId, phash: '0123456789abcdef', chash: 'fedcba9876543210', rhashes: ['00000000ffffffff', 'ffff0000ffff0000'], version: 2 });

    const docs = await loadImageDocuments(db, [imageId, 999_999]);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toEqual({
      id: imageId,
      upvotes: 2, downvotes: 1, score: 1, faves: 2, hides: 1, comment_count: 3,
      width: 800, height: 600, pixels: 480_000, size: 1000, orig_size: 1200,
      animated: false, duration: 0, tag_count: 4, aspect_ratio: 800 / 600,
      wilson_score: wilsonScore(2, 1),
      created_at: '2024-01-02T03:04:05.000Z', updated_at: '2024-02-03T04:05:06.789Z',
      first_seen_at: '2024-01-02T03:04:05.000Z',
      ip: '10.1.2.3',
      tag_ids: [safe!.id, ts!.id, solo!.id, oc!.id],
      tags: ['safe', 'sfw', 'twilight sparkle', 'ts', 'twi', 'solo', 'oc:blue'],
      mime_type: 'image/png', file_name: 'Pic.PNG', original_format: 'png',
      uploader: 'alice', true_uploader: 'alice', uploader_id: alice!.id, true_uploader_id: alice!.id,
      source_url: ['https://example.com/art/1', 'https://example.com/art/2'], source_count: 2,
      processed: true, thumbnails_generated: true, fingerprint: 'c1234', hidden_from_users: false,
      anonymous: false, description: 'A *pony*', deletion_reason: null, approved: true,
      scratchpad: 'note', duplicate_id: null, orig_sha512_hash: 'def', sha512_hash: 'abc',
      favourited_by_user_ids: [bob!.id, carol!.id], favourited_by_users: ['bob', 'carol'],
      hidden_by_user_ids: [mod!.id], hidden_by_users: ['mod'],
      upvoter_ids: [bob!.id, carol!.id], upvoters: ['bob', 'carol'],
      downvoter_ids: [mod!.id], downvoters: ['mod'],
      subscriber_ids: [alice!.id],
      deleted_by_user_id: mod!.id, deleted_by_user: 'mod',
      galleries: [{ id: g1!.id, position: 4 }, { id: g2!.id, position: 0 }],
      error_tag_count: 0, rating_tag_count: 1, origin_tag_count: 0, character_tag_count: 1, oc_tag_count: 1,
      species_tag_count: 0, body_type_tag_count: 0, content_fanmade_tag_count: 0,
      content_official_tag_count: 0, spoiler_tag_count: 0,
      phash: '0123456789abcdef', chash: 'fedcba9876543210',
      phash_chunks: ['00123', '14567', '289ab', '3cdef'], chash_chunks: ['0fedc', '1ba98', '27654', '33210'],
      rhash: ['00000000ffffffff', 'ffff0000ffff0000'],
      rhash_chunks: ['00000', '10000', '2ffff', '3ffff', '0ffff', '10000', '2ffff', '30000'],
    });
  });

  it('hides the uploader of an anonymous upload and keeps the true uploader', async () => {
    const { db } = t;
    const [u] = await db.insert(users).values({ name: 'Shy Person', slug: 'shy-person' }).returning();
    const [img] = await db.insert(images).values({
      userId: u!.id, anonymous: true, imageFormat: 'gif', imageMimeType: 'image/gif', isAnimated: true,
      imageDuration: 1.5, imageWidth: 10, imageHeight: 20,
    }).returning();
    const [doc] = await loadImageDocuments(t.db, [img!.id]);
    expect(doc).toMatchObject({
      uploader: null, uploader_id: null, true_uploader: 'shy person', true_uploader_id: u!.id,
      anonymous: true, animated: true, duration: 1.5, pixels: 200, ip: null, tags: [], tag_ids: [],
      tag_count: 0, source_url: [], source_count: 0, galleries: [], wilson_score: 0,
      favourited_by_users: [], deleted_by_user: null, deleted_by_user_id: null,
      phash: null, chash: null, phash_chunks: [], chash_chunks: [], rhash: [], rhash_chunks: [],
    });
  });

  it('computes the Wilson score lower bound', () => {
    expect(wilsonScore(0, 5)).toBe(0);
    expect(wilsonScore(10, 0)).toBeCloseTo(0.6011, 3);
    expect(wilsonScore(100, 10)).toBeGreaterThan(0.78);
  });
  it('builds the same documents with names kept between the batches of a reindex', async () => {
    const { db } = t;
    const [dana, eve] = await db.insert(users).values([{ name: 'Dana', slug: 'dana' }, { name: 'Eve', slug: 'eve' }]).returning();
    const [cute, pink] = await db.insert(tags).values([
      { name: 'cute', slug: 'cute', nameInNamespace: 'cute' },
      { name: 'pink', slug: 'pink', nameInNamespace: 'pink', category: 'species' },
    ]).returning();
    await db.insert(tags).values({ name: 'adorable', slug: 'adorable', nameInNamespace: 'adorable', aliasedTagId: cute!.id });
    const made = await db.insert(images).values(
      [dana, eve, dana].map((u, i) => ({
        userId: u!.id, imageName: `p${i}.png`, imageWidth: 10, imageHeight: 10, imageSize: 1, imageOrigSize: 1, imageFormat: 'png' as const,
        imageMimeType: 'image/png' as const, imageAspectRatio: 1, imageDuration: 0.04, isAnimated: false,
        imageSha512Hash: `h${i}`, imageOrigSha512Hash: `o${i}`, processed: true, thumbnailsGenerated: true,
      })),
    ).returning();
    const ids = made.map((m) => m.id);
    for (const [k, imageId] of ids.entries()) {
      await db.insert(imageTaggings).values([{ imageId, tagId: cute!.id, position: 0 }, ...(k === 1 ? [] : [{ imageId, tagId: pink!.id, position: 1 }])]);
      await db.insert(imageFaves).values({ imageId, userId: eve!.id });
    }
    const fresh = await loadImageDocuments(db, ids);
    const cache = new Map<string, unknown>();
    const batched = [...(await loadImageDocuments(db, ids.slice(0, 1), cache)), ...(await loadImageDocuments(db, ids.slice(1), cache))];
    expect(batched).toEqual(fresh);
    expect(fresh.map((d) => d.tags)).toEqual([['cute', 'adorable', 'pink'], ['cute', 'adorable'], ['cute', 'adorable', 'pink']]);
    const kept = cache.get('images') as { tags: Map<number, unknown>; users: Map<number, string> };
    expect([...kept.tags.keys()].sort()).toEqual([cute!.id, pink!.id].sort());
    expect(kept.users.get(eve!.id)).toBe('eve');
  });
});
