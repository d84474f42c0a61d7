/**
 * GET /search/comments, /search/posts, /search/galleries, /search/tags and /search/filters on the
 * fixture board: visibility, order, query fields, paging, the error contract; and
 * GET /search/explain.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertResource } from '../support/resources.js';
import { COMMENT, FILTER, GALLERY, HIDDEN_COMMENT, POST, TAG } from '../support/spec-shapes.js';
import { buildBoard, type Board } from './fixtures.js';
import { idsOf, qs, startSearchHarness, type SearchHarness } from './harness.js';

let h: SearchHarness;
let b: Board;

beforeAll(async () => {
  h = await startSearchHarness();
  b = await buildBoard(h.db);
  await h.reindex();
});

afterAll(async () => {
  await h?.close();
});

type Params = Record<string, string | number | undefined>;
const get = (endpoint: string, params: Params) => h.ok(`/search/${endpoint}${qs(params)}`);
const ids = async (endpoint: string, params: Params) => idsOf((await get(endpoint, params))[endpoint]);

describe('GET /search/comments', () => {
  it('anonymous: hidden comments, comments on hidden or unapproved images and unapproved comments are left out; newest first', async () => {
    const { c1, c2 } = b.comments;
    const body = await get('comments', { q: '*' });
    expect(idsOf(body.comments)).toEqual([c2, c1]);
    expect(body.total).toBe(2);
    for (const c of body.comments) assertResource(c, COMMENT);
  });

  it('comments on images the current filter hides are left out', async () => {
    const { c1, c2, c6 } = b.comments;
    expect(await ids('comments', { q: '*', filter_id: b.filters.everything.id })).toEqual([c6, c2, c1]);
  });

  it('a user sees their own unapproved comments, and their own comments on unapproved images', async () => {
    const { c1, c2, c5, c7 } = b.comments;
    expect(await ids('comments', { q: '*', key: b.keys.alice })).toEqual([c5, c2, c1]);
    // c7 is Bob's, on the unapproved image U
    expect(await ids('comments', { q: '*', key: b.keys.bob })).toEqual([c7, c2, c1]);
  });

  it('staff (assistants, moderators) see hidden and unapproved ones, rendered without their body', async () => {
    const { c1, c2, c3, c4, c5, c7 } = b.comments;
    for (const key of [b.keys.asst, b.keys.mod]) {
      const body = await get('comments', { q: '*', key });
      expect(idsOf(body.comments)).toEqual([c7, c5, c4, c3, c2, c1]);
      const hidden = body.comments.find((c: { id: number }) => c.id === c3);
      assertResource(hidden, HIDDEN_COMMENT);
      expect(hidden.body).toBeNull();
      const onHiddenImage = body.comments.find((c: { id: number }) => c.id === c4);
      expect(onHiddenImage).toMatchObject({ id: c4, image_id: b.excluded.deleted.id, body: null, author: null });
    }
    expect(await ids('comments', { q: '*', key: b.keys.mod, filter_id: b.filters.everything.id })).toHaveLength(7);
  });

  it('query fields: body text, image_id, author, my:comments', async () => {
    const { c1, c2, c5 } = b.comments;
    expect(await ids('comments', { q: 'hello' })).toEqual([c1]);
    expect(await ids('comments', { q: `image_id:${b.s[1]!.id}` })).toEqual([c2]);
    expect(await ids('comments', { q: `image_id:${b.s[1]!.id}`, key: b.keys.alice })).toEqual([c5, c2]);
    expect(await ids('comments', { q: 'author:bob' })).toEqual([c1]);
    expect(await ids('comments', { q: 'my:comments', key: b.keys.alice })).toEqual([c5, c2]);
    // for anonymous callers `my` is no field: the text is searched in the body
    expect(await get('comments', { q: 'my:comments' })).toMatchObject({ comments: [], total: 0 });
  });

  it('pages with the real total', async () => {
    const { c1, c2 } = b.comments;
    expect(await get('comments', { q: '*', per_page: 1, page: 2 })).toMatchObject({ comments: [{ id: c1 }], total: 2 });
    expect(await get('comments', { q: '*', per_page: 1 })).toMatchObject({ comments: [{ id: c2 }], total: 2 });
    expect(await get('comments', { q: '*', page: 3 })).toEqual({ comments: [], total: 2, interactions: [] });
  });
});

describe('GET /search/posts', () => {
  it('leaves out posts in hidden topics, in restricted forums, and hidden posts; newest first', async () => {
    const { p1, p2 } = b.posts;
    const body = await get('posts', { q: '*' });
    expect(idsOf(body.posts)).toEqual([p2, p1]);
    expect(body.total).toBe(2);
    for (const p of body.posts) assertResource(p, POST);
    // staff are no exception on this endpoint
    expect(await ids('posts', { q: '*', key: b.keys.mod })).toEqual([p2, p1]);
  });

  it('query fields: body, forum, subject, topic_position', async () => {
    const { p1, p2 } = b.posts;
    expect(await ids('posts', { q: 'first' })).toEqual([p1]);
    expect(await ids('posts', { q: 'forum:general' })).toEqual([p2, p1]);
    expect(await ids('posts', { q: 'forum:staff' })).toEqual([]);
    expect(await ids('posts', { q: 'subject:open' })).toEqual([p2, p1]);
    expect(await ids('posts', { q: 'subject:hidden' })).toEqual([]);
    expect(await ids('posts', { q: 'topic_position:1' })).toEqual([p2]);
    expect(await get('posts', { q: 'topic_position:x' }).catch((e: Error) => e.message)).toMatch(/^GET .*: 400 /);
  });
});

describe('GET /search/galleries', () => {
  it('every gallery, newest first, in the spec shape with both name pairs', async () => {
    const body = await get('galleries', { q: '*' });
    expect(idsOf(body.galleries)).toEqual([b.galleries.misc, b.galleries.best]);
    expect(body.total).toBe(2);
    for (const g of body.galleries) assertResource(g, GALLERY);
    expect(body.galleries[1]).toMatchObject({ title: 'Best Ponies', user: 'Alice', user_id: b.users.alice, creator: 'Alice', thumbnail_id: b.s[1]!.id });
  });

  it('query fields: id (what gallery-dl sends), the exact title, wildcards, user, image_ids', async () => {
    expect(await ids('galleries', { q: `id:${b.galleries.best}` })).toEqual([b.galleries.best]);
    expect(await ids('galleries', { q: 'best ponies' })).toEqual([b.galleries.best]);
    expect(await ids('galleries', { q: 'best' })).toEqual([]);
    expect(await ids('galleries', { q: '*stuff*' })).toEqual([b.galleries.misc]);
    expect(await ids('galleries', { q: 'user:alice' })).toEqual([b.galleries.best]);
    expect(await ids('galleries', { q: `image_ids:${b.s[4]!.id}` })).toEqual([b.galleries.best]);
    expect(await ids('galleries', { q: 'description:ends' })).toEqual([b.galleries.misc]);
  });
});

describe('GET /search/tags', () => {
  const byCount = () =>
    Object.entries(b.tagCounts)
      .sort(([an, ac], [bn, bc]) => bc - ac || (an < bn ? -1 : an > bn ? 1 : 0))
      .map(([name]) => b.tags[name]!.id);

  it('most used first, ties by name; pages', async () => {
    const body = await get('tags', { q: '*', per_page: 50 });
    expect(idsOf(body.tags)).toEqual(byCount());
    expect(body.total).toBe(12);
    for (const t of body.tags) assertResource(t, TAG);
    expect(await ids('tags', { q: '*', per_page: 5, page: 3 })).toEqual(byCount().slice(10));
    expect(await get('tags', { q: '*', per_page: 5, page: 4 })).toEqual({ tags: [], total: 12, interactions: [] });
  });

  it('query fields: name (default), id, category, wildcards', async () => {
    expect(await ids('tags', { q: 'safe' })).toEqual([b.tags.safe!.id]);
    expect(await ids('tags', { q: `id:${b.tags.pony!.id}` })).toEqual([b.tags.pony!.id]);
    expect(await ids('tags', { q: 'category:rating' })).toEqual([b.tags.safe!.id, b.tags.questionable!.id, b.tags.explicit!.id]);
    expect(await ids('tags', { q: 'extra*' })).toEqual([b.tags['extra one']!.id, b.tags['extra three']!.id, b.tags['extra two']!.id]);
    expect(await ids('tags', { q: 'namespace:artist' })).toEqual([b.tags['artist:painter']!.id]);
    expect(await ids('tags', { q: 'category:origin' })).toEqual([b.tags['artist:painter']!.id]);
  });
});

describe('GET /search/filters', () => {
  const f = () => b.filters;
  const publicOnes = () => [f().bobPublic.id, f().broken.id, f().default.id, f().everything.id, f().hidesBig.id];

  it('anonymous callers find public and system filters only, by name', async () => {
    const body = await get('filters', { q: '*' });
    expect(idsOf(body.filters)).toEqual(publicOnes());
    expect(body.total).toBe(5);
    for (const x of body.filters) assertResource(x, FILTER);
  });

  it('a key user also finds their own; nobody finds another user’s private filter, moderators neither', async () => {
    expect(await ids('filters', { q: '*', key: b.keys.alice })).toEqual([f().aliceOwn.id, ...publicOnes()]);
    expect(await ids('filters', { q: '*', key: b.keys.bob })).toEqual([f().bobPrivate.id, ...publicOnes()]);
    expect(await ids('filters', { q: '*', key: b.keys.mod })).toEqual(publicOnes());
  });

  it('query fields: name, system, public, user_id, my:filters', async () => {
    expect(await ids('filters', { q: 'default' })).toEqual([f().default.id]);
    expect(await ids('filters', { q: 'system:true' })).toEqual([f().broken.id, f().default.id, f().everything.id, f().hidesBig.id]);
    expect(await ids('filters', { q: `user_id:${b.users.bob}` })).toEqual([f().bobPublic.id]);
    expect(await ids('filters', { q: `user_id:${b.users.bob}`, key: b.keys.bob })).toEqual([f().bobPrivate.id, f().bobPublic.id]);
    expect(await ids('filters', { q: 'my:filters', key: b.keys.alice })).toEqual([f().aliceOwn.id]);
    expect(await ids('filters', { q: 'my:filters' })).toEqual([]);
  });
});

describe('the error contract on every endpoint', () => {
  const endpoints = ['images', 'comments', 'posts', 'galleries', 'tags', 'filters'];

  it.each(endpoints)('/search/%s: missing or empty q is 200 with nothing', async (endpoint) => {
    for (const q of [undefined, '', '   ']) {
      const res = await h.api(`/search/${endpoint}${qs({ q })}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ [endpoint]: [], total: 0, interactions: [] });
    }
  });

  it.each(endpoints)('/search/%s: a syntax error is 400 with the reference message', async (endpoint) => {
    const res = await h.api(`/search/${endpoint}${qs({ q: '(a || b' })}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ position: expect.any(Object), error: 'Imbalanced parentheses.' });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });

  it.each(endpoints)('/search/%s: q twice or as a list is 400', async (endpoint) => {
    for (const query of ['q=a&q=b', 'q[]=a', 'q[0]=a&q[1]=b']) {
      const res = await h.api(`/search/${endpoint}?${query}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'search query is not a string' });
    }
  });

  it.each(endpoints)('/search/%s: unknown and empty parameters are ignored', async (endpoint) => {
    const res = await h.api(`/search/${endpoint}?&q=*&limit=1&distance=2&sf=x&sd=y&filter_id=abc&key=`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBeGreaterThan(0);
  });

  it('answers are cacheable for a moment, privately for key users', async () => {
    const anon = await h.api('/search/tags?q=*');
    expect(anon.headers.get('cache-control')).toBe('public, max-age=1');
    expect(anon.headers.get('etag')).toBeTruthy();
    const keyed = await h.api(`/search/images?q=*&key=${b.keys.alice}`);
    expect(keyed.headers.get('cache-control')).toBe('private, max-age=1');
    const revalidated = await h.api('/search/tags?q=*', { headers: { 'If-None-Match': anon.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
  });

  it('records the engine latency of each search in the metrics', async () => {
    const count = async () => {
      const text = await (await fetch(`${h.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('search_duration_seconds_count{engine="embedded",index="galleries"}'));
      return line === undefined ? 0 : Number(line.split(' ').at(-1));
    };
    const before = await count();
    await get('galleries', { q: '*' });
    await get('galleries', { q: 'best ponies' });
    expect(await count()).toBe(before + 2);
  });

  it('GET /search/reverse stays 404 (reverse search is POST only)', async () => {
    expect((await h.api('/search/reverse?url=https://example.com/a.png')).status).toBe(404);
  });
});

describe('GET /search/explain', () => {
  const explain = (params: Params) => h.api(`/search/explain${qs(params)}`);

  it('answers the compiled query for the index and the caller’s role', async () => {
    expect((await explain({ index: 'images', q: 'safe, solo' })).body).toEqual({
      index: 'images',
      query: { bool: { must: [{ term: { tags: 'safe' } }, { term: { tags: 'solo' } }] } },
      did_you_mean: [],
    });
    expect((await explain({ index: 'images', q: 'ip:1.2.3.4' })).body.query).toEqual({ term: { tags: 'ip:1.2.3.4' } });
    expect((await explain({ index: 'images', q: 'ip:1.2.3.4', key: b.keys.mod })).body.query).toEqual({ term: { ip: '1.2.3.4' } });
    expect((await explain({ index: 'images', q: 'my:faves', key: b.keys.alice })).body.query).toEqual({
      term: { favourited_by_user_ids: b.users.alice },
    });
    expect((await explain({ index: 'comments', q: 'my:comments', key: b.keys.bob })).body).toEqual({
      index: 'comments',
      query: { term: { true_author_id: b.users.bob } },
    });
    expect((await explain({ index: 'tags', q: '' })).body).toEqual({ index: 'tags', query: { match_none: {} } });
  });

  it('expands my:watched and filter_id: with what the caller may use', async () => {
    const watched = (await explain({ index: 'images', q: 'my:watched', key: b.keys.alice })).body.query;
    expect(watched.bool.should[0]).toEqual({ terms: { tag_ids: [b.tags['twilight sparkle']!.id] } });
    expect(JSON.stringify(watched)).toContain('artist:painter');
    const filtered = (await explain({ index: 'images', q: `filter_id:${b.filters.bobPublic.id}` })).body.query;
    expect(filtered.bool.must_not[0]).toEqual({ terms: { tag_ids: [b.tags.solo!.id] } });
    const hidden = await explain({ index: 'images', q: `filter_id:${b.filters.bobPrivate.id}` });
    expect(hidden).toMatchObject({ status: 400, body: { error: `Invalid filter \`${b.filters.bobPrivate.id}\`.` } });
  });

  it('400 for a bad query, an unknown or missing index (listing the indexes)', async () => {
    expect(await explain({ index: 'images', q: '(safe' })).toMatchObject({ status: 400, body: { error: 'Imbalanced parentheses.' } });
    expect(await explain({ index: 'images', q: 'my:faves' })).toMatchObject({
      status: 400,
      body: { error: "You must be logged in to use `my' queries." },
    });
    for (const params of [{ index: 'users', q: 'a' }, { q: 'a' }]) {
      const res = await explain(params);
      expect(res.status).toBe(400);
      expect(res.body.error).toContain('images, comments, posts, galleries, tags, filters');
    }
  });
});
