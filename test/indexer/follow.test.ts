/**
 * Every trigger path writes outbox rows and the follower applies them: a change committed through
 * the database is visible to search within a second.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import {
  comments, forums, imageFaves, images, imageTaggings, posts, searchOutbox, tags, topics, users,
} from '../../src/db/schema/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import type { IndexDocument } from '../../src/search/engine.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { eventually, expectDefined } from './helpers.js';

let t: TestDatabase;
let engine: EmbeddedEngine;
let indexer: Indexer;

beforeAll(async () => {
  t = await createTestDatabase();
  engine = new EmbeddedEngine();
  indexer = new Indexer({ db: t.db, engine, pollMs: 200 });
  await indexer.ensureIndexes();
  indexer.start();
});
afterAll(async () => {
  await indexer?.stop();
  await t?.drop();
});

async function doc(index: string, id: number): Promise<IndexDocument | undefined> {
  return (await engine.get(index, [id])).get(id);
}

async function hits(index: string, query: object): Promise<number[]> {
  return (await engine.search(index, { query: query as never, sort: [{ id: { order: 'asc' } }], size: 100 })).ids;
}

const png = { imageFormat: 'png', imageMimeType: 'image/png' } as const;

describe('outbox follower', () => {
  it('indexes an inserted image, then its updates and deletion, each within a second', async () => {
    const { db } = t;
    const [img] = await db.insert(images).values({ ...png, score: 3 }).returning();
    const id = img!.id;
    await eventually(async () => expect(await hits('images', { term: { score: 3 } })).toContain(id));

    await db.update(images).set({ score: 42, description: 'a lovely sunset' }).where(eq(images.id, id));
    await eventually(async () => expect(await doc('images', id)).toMatchObject({ score: 42, description: 'a lovely sunset' }));
    expect(await hits('images', { match_phrase: { description: 'lovely sunset' } })).toEqual([id]);

    const [tag] = await db.insert(tags).values({ name: 'sunset', slug: 'sunset', nameInNamespace: 'sunset' }).returning();
    await db.insert(imageTaggings).values({ imageId: id, tagId: tag!.id });
    await eventually(async () => expect(await hits('images', { term: { tags: 'sunset' } })).toEqual([id]));
    await eventually(async () => expect(await doc('tags', tag!.id)).toMatchObject({ name: 'sunset' }));

    await db.delete(images).where(eq(images.id, id));
    await eventually(async () => expect(await doc('images', id)).toBeUndefined());
    expect(await hits('images', { term: { tags: 'sunset' } })).toEqual([]);
    // applied rows wait for the engine's flush, but they are not lag
    await eventually(async () => expect(await indexer.lag()).toEqual({ pending: 0, oldestAgeSeconds: null }));
    // applied rows are deleted once the engine has flushed them
    await eventually(async () => {
      await indexer.commit();
      expect(await db.select().from(searchOutbox)).toEqual([]);
    });
  });

  it('a renamed user: images and comments carry the new lowercased name', async () => {
    const { db } = t;
    const [u, fan] = await db.insert(users).values([
      { name: 'OldName', slug: 'oldname' },
      { name: 'Fan', slug: 'fan' },
    ]).returning();
    const [mine, faved] = await db.insert(images).values([{ ...png, userId: u!.id }, { ...png, userId: fan!.id }]).returning();
    await db.insert(imageFaves).values({ imageId: faved!.id, userId: u!.id });
    const [c] = await db.insert(comments).values({ imageId: faved!.id, userId: u!.id, body: 'nice' }).returning();
    await eventually(async () => expect(await doc('comments', c!.id)).toMatchObject({ author: 'oldname' }));
    await eventually(async () => expect(await doc('images', faved!.id)).toMatchObject({ favourited_by_users: ['oldname'] }));

    await db.update(users).set({ name: 'Brand New' }).where(eq(users.id, u!.id));
    await eventually(async () => {
      expect(await doc('images', mine!.id)).toMatchObject({ uploader: 'brand new', true_uploader: 'brand new' });
      expect(await doc('images', faved!.id)).toMatchObject({ favourited_by_users: ['brand new'], uploader: 'fan' });
      expect(await doc('comments', c!.id)).toMatchObject({ author: 'brand new', true_author: 'brand new' });
    });
    expect(await hits('images', { term: { uploader: 'brand new' } })).toEqual([mine!.id]);
  });

  it('an alias: images with the target tag get the alias name', async () => {
    const { db } = t;
    const [target, other] = await db.insert(tags).values([
      { name: 'twilight sparkle', slug: 'twilight+sparkle', nameInNamespace: 'twilight sparkle' },
      { name: 'twi', slug: 'twi', nameInNamespace: 'twi' },
    ]).returning();
    const [img] = await db.insert(images).values(png).returning();
    await db.insert(imageTaggings).values({ imageId: img!.id, tagId: target!.id });
    await eventually(async () => expect(await doc('images', img!.id)).toMatchObject({ tags: ['twilight sparkle'] }));

    await db.update(tags).set({ aliasedTagId: target!.id }).where(eq(tags.id, other!.id));
    await eventually(async () => {
      expect(await doc('images', img!.id)).toMatchObject({ tags: ['twilight sparkle', 'twi'] });
      expect(await doc('tags', target!.id)).toMatchObject({ aliases: ['twi'] });
      expect(await doc('tags', other!.id)).toMatchObject({ aliased: true, aliased_tag: 'twilight sparkle' });
    });
    expect(await hits('images', { term: { tags: 'twi' } })).toEqual([img!.id]);

    // a tag rename reaches the images and the comments on them
    const [c] = await db.insert(comments).values({ imageId: img!.id, body: 'hi' }).returning();
    await db.update(tags).set({ name: 'twilight' }).where(eq(tags.id, target!.id));
    await eventually(async () => {
      expect(await doc('images', img!.id)).toMatchObject({ tags: ['twilight', 'twi'] });
      expect(await doc('comments', c!.id)).toMatchObject({ image: { tags: ['twilight'] } });
      expect(await doc('tags', other!.id)).toMatchObject({ aliased_tag: 'twilight' });
    });
  });

  it('hiding a topic hides its posts; a forum change reaches them too', async () => {
    const { db } = t;
    const [forum] = await db.insert(forums).values({ name: 'General', shortName: 'dis' }).returning();
    const [topic] = await db.insert(topics).values({ forumId: forum!.id, title: 'Hello', slug: 'hello' }).returning();
    const ps = await db.insert(posts).values([
      { topicId: topic!.id, body: 'one', topicPosition: 0 },
      { topicId: topic!.id, body: 'two', topicPosition: 1 },
    ]).returning();
    await eventually(async () => expect(await hits('posts', { term: { hidden_from_users: false } })).toEqual(ps.map((p) => p.id)));

    await db.update(topics).set({ hiddenFromUsers: true, title: 'Goodbye' }).where(eq(topics.id, topic!.id));
    await eventually(async () => expect(await hits('posts', { term: { hidden_from_users: true } })).toEqual(ps.map((p) => p.id)));
    expect(await doc('posts', ps[0]!.id)).toMatchObject({ subject: 'Goodbye' });

    await db.update(forums).set({ shortName: 'gen', accessLevel: 'staff' }).where(eq(forums.id, forum!.id));
    await eventually(async () => expect(await hits('posts', { term: { forum: 'gen' } })).toEqual(ps.map((p) => p.id)));
    expect(await doc('posts', ps[1]!.id)).toMatchObject({ access_level: 'staff' });
  });

  it('deleting an image removes its comments too', async () => {
    const { db } = t;
    const [img] = await db.insert(images).values(png).returning();
    const [c] = await db.insert(comments).values({ imageId: img!.id, body: 'bye' }).returning();
    await eventually(async () => {
      expectDefined(await doc('comments', c!.id));
    });
    await db.delete(images).where(eq(images.id, img!.id));
    await eventually(async () => {
      expect(await doc('comments', c!.id)).toBeUndefined();
      expect(await doc('images', img!.id)).toBeUndefined();
    });
  });
});
