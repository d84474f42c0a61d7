import { pbkdf2Sync } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { avatarDataUri } from '../../src/contexts/users/avatar.js';
import { assertResource } from '../support/resources.js';
import { FORUM, POST, TOPIC } from '../support/spec-shapes.js';
import { insertUser, SALT, startHarness, type Harness } from './harness.js';

let h: Harness;

/** Each path answers 404 with the JSON error body. */
async function expectNotFound(...paths: string[]): Promise<void> {
  for (const path of paths) {
    const r = await h.api(path);
    expect([r.status, r.body], path).toStrictEqual([404, { error: 'Not found' }]);
  }
}

const pony = (objectId: string, who: string) =>
  `Background Pony #${pbkdf2Sync(objectId + who, SALT, 100, 2, 'sha256').toString('hex').toUpperCase()}`;

type Forum = typeof s.forums.$inferSelect;
type Topic = typeof s.topics.$inferSelect;
let general: Forum;
let staff: Forum;
let author: typeof s.users.$inferSelect;
let main: Topic;
const mainPosts: (typeof s.posts.$inferSelect)[] = [];

/** The first post of the main topic as the API renders it. */
const firstPost = () => ({
  id: mainPosts[0]!.id,
  user_id: author.id,
  author: 'Forum Regular',
  avatar: avatarDataUri('Forum Regular'),
  body: 'post 0',
  created_at: '2024-01-01T00:00:00Z',
  updated_at: '2024-01-01T00:00:00Z',
  edited_at: null,
  edit_reason: null,
});

async function insertForum(values: Partial<typeof s.forums.$inferInsert> & { name: string; shortName: string }) {
  const [row] = await h.db.insert(s.forums).values(values).returning();
  return row!;
}
async function insertTopic(values: Partial<typeof s.topics.$inferInsert> & { forumId: number; title: string; slug: string }) {
  const [row] = await h.db.insert(s.topics).values(values).returning();
  return row!;
}
async function insertPost(values: Partial<typeof s.posts.$inferInsert> & { topicId: number; topicPosition: number }) {
  const [row] = await h.db.insert(s.posts).values({ body: `post ${values.topicPosition}`, ...values }).returning();
  return row!;
}

beforeAll(async () => {
  h = await startHarness();
  author = await insertUser(h.db, { name: 'Forum Regular' });
  general = await insertForum({ name: 'General Discussion', shortName: 'dis', description: 'Talk about anything', topicCount: 3, postCount: 40 });
  await insertForum({ name: 'Art Chat', shortName: 'art', description: 'Art' });
  staff = await insertForum({ name: 'Staff', shortName: 'staff', accessLevel: 'staff' });
  await insertForum({ name: 'Assistants', shortName: 'assist', accessLevel: 'assistant' });

  main = await insertTopic({
    forumId: general.id,
    title: 'The main topic',
    slug: 'the-main-topic',
    userId: author.id,
    postCount: 30,
    viewCount: 123,
    lastRepliedToAt: new Date('2024-06-01T12:00:00Z'),
    lockedAt: new Date('2024-06-02T00:00:00Z'),
  });
  for (let i = 0; i < 30; i++) {
    mainPosts.push(
      await insertPost({
        topicId: main.id,
        topicPosition: i,
        userId: i % 3 === 2 ? null : author.id,
        anonymous: i % 3 === 1,
        fingerprint: i % 3 === 2 ? 'fp' : null,
        destroyedContent: i === 5,
        hiddenFromUsers: i === 6,
        createdAt: new Date(Date.UTC(2024, 0, 1, 0, i)),
        updatedAt: new Date(Date.UTC(2024, 0, 1, 0, i)),
      }),
    );
  }
  await insertTopic({ forumId: general.id, title: 'Older', slug: 'older', lastRepliedToAt: new Date('2024-01-01T00:00:00Z') });
  await insertTopic({ forumId: general.id, title: 'Sticky rules', slug: 'rules', sticky: true, lastRepliedToAt: new Date('2020-01-01T00:00:00Z') });
  await insertTopic({ forumId: general.id, title: 'Newest', slug: 'newest', anonymous: true, userId: author.id, lastRepliedToAt: new Date('2024-07-01T00:00:00Z') });
  await insertTopic({ forumId: general.id, title: 'Hidden', slug: 'hidden', hiddenFromUsers: true, lastRepliedToAt: new Date('2025-01-01T00:00:00Z') });
  const staffTopic = await insertTopic({ forumId: staff.id, title: 'Secret', slug: 'secret' });
  await insertPost({ topicId: staffTopic.id, topicPosition: 0 });
});
afterAll(async () => {
  await h?.close();
});

describe('GET /forums', () => {
  it('lists only normal forums by name, with total', async () => {
    const res = await h.api('/forums');
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      forums: [
        { name: 'Art Chat', short_name: 'art', description: 'Art', topic_count: 0, post_count: 0 },
        { name: 'General Discussion', short_name: 'dis', description: 'Talk about anything', topic_count: 3, post_count: 40 },
      ],
      total: 2,
    });
    for (const f of res.body.forums) assertResource(f, FORUM);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('pages with per_page and answers an empty page with the right total past the end', async () => {
    expect((await h.api('/forums?per_page=1')).body).toMatchObject({ forums: [{ short_name: 'art' }], total: 2 });
    expect((await h.api('/forums?per_page=1&page=2')).body).toMatchObject({ forums: [{ short_name: 'dis' }], total: 2 });
    expect((await h.api('/forums?per_page=1&page=3')).body).toStrictEqual({ forums: [], total: 2 });
    expect((await h.api('/forums?page=99999999999999')).body).toStrictEqual({ forums: [], total: 2 });
  });
});

describe('GET /forums/:short_name', () => {
  it('shows a normal forum and 404s others', async () => {
    const res = await h.api('/forums/dis');
    expect(res.body).toStrictEqual({
      forum: { name: 'General Discussion', short_name: 'dis', description: 'Talk about anything', topic_count: 3, post_count: 40 },
    });
    await expectNotFound(...['staff', 'assist', 'nope', '%00', 'd%C3'].map((name) => `/forums/${name}`));
  });
});

describe('GET /forums/:short_name/topics', () => {
  it('lists visible topics, sticky first, then by last reply', async () => {
    const res = await h.api('/forums/dis/topics');
    expect(res.status).toBe(200);
    expect(res.body.topics.map((t: { slug: string }) => t.slug)).toEqual(['rules', 'newest', 'the-main-topic', 'older']);
    expect(res.body.total).toBe(4);
    for (const t of res.body.topics) assertResource(t, TOPIC);
    expect(res.body.topics[2]).toStrictEqual({
      slug: 'the-main-topic',
      title: 'The main topic',
      post_count: 30,
      view_count: 123,
      sticky: false,
      last_replied_to_at: '2024-06-01T12:00:00Z',
      locked: true,
      user_id: author.id,
      author: 'Forum Regular',
    });
    const anonymous = res.body.topics[1];
    expect(anonymous.user_id).toBeNull();
    expect(anonymous.author).toMatch(/^Background Pony #[0-9A-F]{4}$/);
    expect(res.body.topics[0].author).toMatch(/^Background Pony #/);
  });

  it('pages and clamps per_page', async () => {
    expect((await h.api('/forums/dis/topics?per_page=2&page=2')).body.topics.map((t: { slug: string }) => t.slug)).toEqual(['the-main-topic', 'older']);
    expect((await h.api('/forums/dis/topics?per_page=0')).body.topics).toHaveLength(1);
    expect((await h.api('/forums/dis/topics?per_page=-4')).body.topics).toHaveLength(1);
    expect((await h.api('/forums/dis/topics?per_page=3abc')).body.topics).toHaveLength(3);
    expect((await h.api('/forums/dis/topics?per_page=abc')).body.topics).toHaveLength(4);
    expect((await h.api('/forums/dis/topics?page=')).body.topics).toHaveLength(4);
    expect((await h.api('/forums/dis/topics?page=3&per_page=2')).body).toStrictEqual({ topics: [], total: 4 });
  });

  it('answers 404 for unknown and restricted forums', async () => {
    await expectNotFound('/forums/staff/topics', '/forums/nope/topics');
  });
});

describe('GET /forums/:short_name/topics/:topic_slug', () => {
  it('shows visible topics only', async () => {
    const res = await h.api('/forums/dis/topics/the-main-topic');
    expect(res.body.topic).toMatchObject({ slug: 'the-main-topic', post_count: 30, locked: true });
    assertResource(res.body.topic, TOPIC);
    await expectNotFound('/forums/dis/topics/hidden', '/forums/staff/topics/secret', '/forums/art/topics/the-main-topic', '/forums/dis/topics/none');
  });
});

describe('GET /forums/:short_name/topics/:topic_slug/posts', () => {
  it('answers the posts whose positions fall in the page window, dropping destroyed ones', async () => {
    const res = await h.api('/forums/dis/topics/the-main-topic/posts');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(30);
    // Positions 0..24, position 5 destroyed.
    expect(res.body.posts).toHaveLength(24);
    expect(res.body.posts.map((p: { id: number }) => p.id)).toEqual(mainPosts.slice(0, 25).filter((_, i) => i !== 5).map((p) => p.id));
    for (const p of res.body.posts) assertResource(p, POST);
    expect(res.body.posts[0]).toStrictEqual(firstPost());
    const anon = res.body.posts[1];
    expect(anon.user_id).toBeNull();
    expect(anon.author).toBe(pony(String(main.id), String(author.id)));
    expect(res.body.posts[2].author).toBe(pony(String(main.id), 'fp'));
    const hidden = res.body.posts.find((p: { id: number }) => p.id === mainPosts[6]!.id);
    expect(hidden).toMatchObject({ body: null, author: 'Forum Regular' });

    const page2 = await h.api('/forums/dis/topics/the-main-topic/posts?page=2');
    expect(page2.body.posts.map((p: { id: number }) => p.id)).toEqual(mainPosts.slice(25).map((p) => p.id));
    const small = await h.api('/forums/dis/topics/the-main-topic/posts?page=2&per_page=4');
    expect(small.body.posts.map((p: { id: number }) => p.id)).toEqual([mainPosts[4]!.id, mainPosts[6]!.id, mainPosts[7]!.id]);
    expect((await h.api('/forums/dis/topics/the-main-topic/posts?page=9')).body).toStrictEqual({ posts: [], total: 30 });
    expect((await h.api('/forums/dis/topics/the-main-topic/posts?page=999999999&per_page=50')).body).toStrictEqual({ posts: [], total: 30 });
  });

  it('answers 404 for hidden topics and restricted forums', async () => {
    expect((await h.api('/forums/dis/topics/hidden/posts')).status).toBe(404);
    expect((await h.api('/forums/staff/topics/secret/posts')).status).toBe(404);
  });
});

describe('single posts', () => {
  it('GET /forums/…/posts/:post_id shows a post of that topic only', async () => {
    const p = mainPosts[3]!;
    const res = await h.api(`/forums/dis/topics/the-main-topic/posts/${p.id}`);
    expect(res.status).toBe(200);
    assertResource(res.body.post, POST);
    expect(res.body.post.id).toBe(p.id);
    expect((await h.api(`/forums/dis/topics/older/posts/${p.id}`)).status).toBe(404);
    expect((await h.api(`/forums/dis/topics/the-main-topic/posts/${mainPosts[5]!.id}`)).status).toBe(404);
    expect((await h.api('/forums/dis/topics/the-main-topic/posts/abc')).body).toStrictEqual({ error: 'Not found' });
  });

  it('GET /posts/:post_id: not destroyed, topic visible, forum normal', async () => {
    const ok = await h.api(`/posts/${mainPosts[0]!.id}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toStrictEqual({ post: firstPost() });
    const hiddenPost = await h.api(`/posts/${mainPosts[6]!.id}`);
    expect(hiddenPost.body.post).toMatchObject({ body: null, edited_at: null, edit_reason: null, author: 'Forum Regular' });
    const hiddenTopic = await insertTopic({ forumId: general.id, title: 'H', slug: 'h2', hiddenFromUsers: true });
    const inHidden = await insertPost({ topicId: hiddenTopic.id, topicPosition: 0 });
    const [staffPost] = await h.db.select().from(s.posts).innerJoin(s.topics, eq(s.topics.id, s.posts.topicId)).where(eq(s.topics.forumId, staff.id));
    await expectNotFound(...[mainPosts[5]!.id, inHidden.id, staffPost!.posts.id, 999999, 'x', '4294967296', '1e2'].map((id) => `/posts/${id}`));
  });
});
