import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  comments, filters, forums, galleries, galleryInteractions, gallerySubscriptions, images, imageTaggings,
  posts, tagImplications, tags, topics, users,
} from '../../src/db/schema/index.js';
import { loadCommentDocuments } from '../../src/contexts/search/documents/comments-documents.js';
import { loadFilterDocuments } from '../../src/contexts/search/documents/filters-documents.js';
import { loadGalleryDocuments } from '../../src/contexts/search/documents/galleries-documents.js';
import { indexDefinitions, indexNames } from '../../src/search/indexes/index.js';
import { allIds, countRows, loadDocuments } from '../../src/contexts/search/documents/load.js';
import { loadPostDocuments } from '../../src/contexts/search/documents/posts-documents.js';
import { loadTagDocuments } from '../../src/contexts/search/documents/tags-documents.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

const at = (s: string) => new Date(s);

async function someUsers() {
  return t.db.insert(users).values([
    { name: `Writer ${Math.random()}`.slice(0, 14), slug: `w-${Math.random()}` },
    { name: `Mod ${Math.random()}`.slice(0, 11), slug: `m-${Math.random()}`, role: 'moderator' },
  ]).returning();
}

describe('document builders', () => {
  it('comments: author hidden when anonymous, image tags without aliases, image flags', async () => {
    const { db } = t;
    const [writer, mod] = await someUsers();
    const [safe, pony] = await db.insert(tags).values([
      { name: 'c-safe', slug: 'c-safe', nameInNamespace: 'c-safe', category: 'rating' },
      { name: 'c-pony', slug: 'c-pony', nameInNamespace: 'c-pony' },
    ]).returning();
    await db.insert(tags).values({ name: 'c-alias', slug: 'c-alias', nameInNamespace: 'c-alias', aliasedTagId: safe!.id });
    const [img] = await db.insert(images).values({
      imageFormat: 'png', imageMimeType: 'image/png', hiddenFromUsers: true, approved: false,
    }).returning();
    await db.insert(imageTaggings).values([
      { imageId: img!.id, tagId: pony!.id, position: 0 },
      { imageId: img!.id, tagId: safe!.id, position: 1 },
    ]);
    const [c1, c2] = await db.insert(comments).values([
      {
        imageId: img!.id, userId: writer!.id, body: 'First!', ip: '2001:db8::1', fingerprint: 'fp',
        createdAt: at('2024-03-01T00:00:00Z'), updatedAt: at('2024-03-02T00:00:00Z'),
      },
      {
        imageId: img!.id, userId: writer!.id, anonymous: true, body: 'secret', hiddenFromUsers: true,
        approved: false, destroyedContent: true, deletionReason: 'spam', deletedById: mod!.id,
        createdAt: at('2024-03-01T00:00:00Z'), updatedAt: at('2024-03-02T00:00:00Z'),
      },
    ]).returning();
    const docs = await loadCommentDocuments(db, [c2!.id, c1!.id, 123456]);
    const name = writer!.name.toLowerCase();
    const image = { tag_ids: [pony!.id, safe!.id], tags: ['c-pony', 'c-safe'], hidden_from_users: true, approved: false };
    expect(docs).toEqual([
      {
        id: c1!.id, created_at: '2024-03-01T00:00:00.000Z', updated_at: '2024-03-02T00:00:00.000Z',
        ip: '2001:db8::1', fingerprint: 'fp', image_id: img!.id, author_id: writer!.id, author: name,
        true_author_id: writer!.id, true_author: name, deleted_by_user_id: null, deleted_by_user: null,
        anonymous: false, hidden_from_users: false, approved: true, destroyed_content: false,
        body: 'First!', deletion_reason: '', image,
      },
      {
        id: c2!.id, created_at: '2024-03-01T00:00:00.000Z', updated_at: '2024-03-02T00:00:00.000Z',
        ip: null, fingerprint: null, image_id: img!.id, author_id: null, author: null,
        true_author_id: writer!.id, true_author: name, deleted_by_user_id: mod!.id,
        deleted_by_user: mod!.name.toLowerCase(), anonymous: true, hidden_from_users: true, approved: false,
        destroyed_content: true, body: 'secret', deletion_reason: 'spam', image,
      },
    ]);
  });

  it('posts: subject, forum short name, access level, hidden when the topic is', async () => {
    const { db } = t;
    const [writer] = await someUsers();
    const [forum] = await db.insert(forums).values({ name: 'General Discussion', shortName: 'dis', accessLevel: 'normal' }).returning();
    const [topic] = await db.insert(topics).values({
      forumId: forum!.id, userId: writer!.id, title: 'Hello Everypony', slug: 'hello-everypony', hiddenFromUsers: true,
    }).returning();
    const [post] = await db.insert(posts).values({
      topicId: topic!.id, userId: writer!.id, body: 'Hi', topicPosition: 0, ip: '192.168.0.7',
      createdAt: at('2024-05-01T10:00:00.5Z'), updatedAt: at('2024-05-01T10:00:00.5Z'),
    }).returning();
    const name = writer!.name.toLowerCase();
    expect(await loadPostDocuments(db, [post!.id])).toEqual([{
      id: post!.id, topic_position: 0, body: 'Hi', subject: 'Hello Everypony', deletion_reason: '',
      ip: '192.168.0.7', fingerprint: null, author_id: writer!.id, author: name, true_author_id: writer!.id,
      true_author: name, forum: 'dis', forum_id: forum!.id, topic_id: topic!.id, access_level: 'normal',
      deleted_by_user_id: null, deleted_by_user: null, anonymous: false, hidden_from_users: true,
      destroyed_content: false, approved: true, created_at: '2024-05-01T10:00:00.500Z',
      updated_at: '2024-05-01T10:00:00.500Z',
    }]);
  });

  it('galleries: lowercased title, image ids in order, subscriber count, creator', async () => {
    const { db } = t;
    const [creator, sub] = await someUsers();
    const imgs = await db.insert(images).values([
      { imageFormat: 'png', imageMimeType: 'image/png' },
      { imageFormat: 'png', imageMimeType: 'image/png' },
    ]).returning();
    const [g] = await db.insert(galleries).values({
      title: 'Chartreuse Alpacas', description: 'Green', thumbnailId: imgs[0]!.id, creatorId: creator!.id, imageCount: 2,
      createdAt: at('2024-06-01T00:00:00Z'), updatedAt: at('2024-06-02T00:00:00Z'),
    }).returning();
    await db.insert(galleryInteractions).values([
      { galleryId: g!.id, imageId: imgs[0]!.id, position: 1 },
      { galleryId: g!.id, imageId: imgs[1]!.id, position: 0 },
    ]);
    await db.insert(gallerySubscriptions).values([{ galleryId: g!.id, userId: sub!.id }, { galleryId: g!.id, userId: creator!.id }]);
    const name = creator!.name.toLowerCase();
    expect(await loadGalleryDocuments(db, [g!.id])).toEqual([{
      id: g!.id, image_count: 2, subscriber_count: 2, created_at: '2024-06-01T00:00:00.000Z',
      updated_at: '2024-06-02T00:00:00.000Z', title: 'chartreuse alpacas', true_creator_id: creator!.id,
      true_creator: name, creator_id: creator!.id, creator: name, image_ids: [imgs[1]!.id, imgs[0]!.id],
      description: 'Green', anonymous: false,
    }]);
  });

  it('tags: implied and implying names, aliases, alias target, analyzed name', async () => {
    const { db } = t;
    const [ts, unicorn, pony] = await db.insert(tags).values([
      { name: 't-twilight', slug: 't-twilight', nameInNamespace: 't-twilight', category: 'character', description: 'Purple', shortDescription: 'P', imagesCount: 7 },
      { name: 't-unicorn', slug: 't-unicorn', nameInNamespace: 't-unicorn', category: 'species' },
      { name: 't-pony', slug: 't-pony', nameInNamespace: 't-pony' },
    ]).returning();
    const [alias] = await db.insert(tags).values({ name: 'artist:t', slug: 'artist-colon-t', namespace: 'artist', nameInNamespace: 't', aliasedTagId: ts!.id }).returning();
    await db.insert(tagImplications).values([
      { tagId: ts!.id, impliedTagId: unicorn!.id },
      { tagId: ts!.id, impliedTagId: pony!.id },
      { tagId: unicorn!.id, impliedTagId: pony!.id },
    ]);
    const docs = await loadTagDocuments(db, [ts!.id, pony!.id, alias!.id]);
    expect(docs).toEqual([
      {
        id: ts!.id, images: 7, slug: 't-twilight', name: 't-twilight', name_in_namespace: 't-twilight',
        namespace: null, aliased_tag: null, aliases: ['artist:t'], implied_tags: ['t-pony', 't-unicorn'],
        implied_by_tags: [], category: 'character', aliased: false, analyzed_name: 't-twilight',
        description: 'Purple', short_description: 'P',
      },
      {
        id: pony!.id, images: 0, slug: 't-pony', name: 't-pony', name_in_namespace: 't-pony', namespace: null,
        aliased_tag: null, aliases: [], implied_tags: [], implied_by_tags: ['t-twilight', 't-unicorn'],
        category: null, aliased: false, analyzed_name: 't-pony', description: '', short_description: '',
      },
      {
        id: alias!.id, images: 0, slug: 'artist-colon-t', name: 'artist:t', name_in_namespace: 't',
        namespace: 'artist', aliased_tag: 't-twilight', aliases: [], implied_tags: [], implied_by_tags: [],
        category: null, aliased: true, analyzed_name: 'artist:t', description: '', short_description: '',
      },
    ]);
  });

  it('filters: public for system filters, lowercased strings, counts', async () => {
    const { db } = t;
    const [owner] = await someUsers();
    const [sys, own] = await db.insert(filters).values([
      { name: 'Default', system: true, description: 'The default', hiddenTagIds: [1, 2, 3], spoileredTagIds: [4], hiddenComplexStr: 'Score.LT:-10', createdAt: at('2024-01-01T00:00:00Z') },
      { name: 'My Filter', userId: owner!.id, spoileredComplexStr: 'FOO || Bar', createdAt: at('2024-01-01T00:00:00Z') },
    ]).returning();
    expect(await loadFilterDocuments(db, [sys!.id, own!.id])).toEqual([
      {
        id: sys!.id, created_at: '2024-01-01T00:00:00.000Z', user_id: null, creator: null, name: 'default',
        description: 'The default', public: true, system: true, spoilered_tag_ids: [4], hidden_tag_ids: [1, 2, 3],
        spoilered_complex_str: '', hidden_complex_str: 'score.lt:-10', spoilered_count: 1, hidden_count: 3,
      },
      {
        id: own!.id, created_at: '2024-01-01T00:00:00.000Z', user_id: owner!.id, creator: owner!.name.toLowerCase(),
        name: 'my filter', description: '', public: false, system: false, spoilered_tag_ids: [], hidden_tag_ids: [],
        spoilered_complex_str: 'foo || bar', hidden_complex_str: '', spoilered_count: 0, hidden_count: 0,
      },
    ]);
  });

  it('every document carries exactly the mapped fields (no unmapped extras)', async () => {
    for (const name of indexNames) {
      const def = indexDefinitions[name];
      const ids: number[] = [];
      for await (const batch of allIds(t.db, name, { batchSize: 2 })) ids.push(...batch);
      expect(ids.length).toBe(await countRows(t.db, name));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      const docs = await loadDocuments(t.db, name, ids);
      expect(docs.map((d) => d.id)).toEqual(ids);
      // newest first (the OpenSearch load order): the same ids, descending, in batches alike
      const newest: number[] = [];
      for await (const batch of allIds(t.db, name, { batchSize: 2, newestFirst: true })) {
        expect(batch.length).toBeLessThanOrEqual(2);
        newest.push(...batch);
      }
      expect(newest).toEqual([...ids].reverse());
      const mapped = new Set(Object.keys(def.mapping.properties));
      for (const doc of docs) {
        for (const key of Object.keys(doc)) expect(mapped.has(key), `${name}.${key} is mapped`).toBe(true);
      }
    }
  });
});
