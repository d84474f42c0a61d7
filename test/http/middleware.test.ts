import { pbkdf2Sync } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../../src/db/client.js';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import * as s from '../../src/db/schema/index.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { bodyEtag, etagMatches } from '../../src/http/middleware/cache.js';
import { toPaging } from '../../src/api/paging.js';
import { integerParsePrefix, pathParams, routeQuery } from '../../src/api/schemas/params.js';
import { queryValues } from '../../src/http/request/validate.js';
import { freePort } from '../../src/lib/free-port.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import { compareDisplayOrder, displayOrder } from '../../src/contexts/tags/display-order.js';
import { anonymousName, bestUserIdentifier } from '../../src/contexts/users/anonymous-name.js';
import { avatarDataUri, avatarSvg, avatarTraits, crc32 } from '../../src/contexts/users/avatar.js';
import { insertImage, insertKey, insertTag, insertUser, serveApp, startHarness, stubEngine, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  await insertTag(h.db, 'safe', { category: 'rating', description: 'v1' });
});
afterAll(async () => {
  await h?.close();
});

describe('errors', () => {
  it('answers unknown routes with 404 {"error":"Not found"}', async () => {
    for (const path of ['/nope', '/api/v1/json/nope', '/api/v1/json', '/api/v2/json/images/1', '/api/v1/json/images']) {
      const res = await h.request(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toStrictEqual({ error: 'Not found' });
    }
    const post = await h.request('/api/v1/json/tags/safe', { method: 'POST' });
    expect(post.status).toBe(404);
    expect(await post.json()).toStrictEqual({ error: 'Not found' });
  });

  it('turns an unexpected failure into a logged 500 {"error":"Internal Error"}', async () => {
    const logged: unknown[] = [];
    // the stub engine rejects every call with a plain Error: a fault, not an outage
    const app = createApp(composeApp({ config: h.config, db: h.db, engine: stubEngine, logger: { error: (o) => logged.push(o) } }));
    const served = await serveApp(app);
    try {
      const res = await fetch(`${served.url}/api/v1/json/search/images?q=*`);
      expect(res.status).toBe(500);
      expect(await res.json()).toStrictEqual({ error: 'Internal Error' });
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('retry-after')).toBeNull();
      expect(logged.length).toBeGreaterThan(0);
    } finally {
      await served.close();
    }
  });

  it('answers an unreachable database with a logged 503 and Retry-After, and /healthz with 503', async () => {
    const db = createDatabase('postgres://nobody@127.0.0.1:1/none', { max: 1 });
    const logged: unknown[] = [];
    const app = createApp(composeApp({ config: h.config, db, engine: stubEngine, logger: { error: (o) => logged.push(o) } }));
    const served = await serveApp(app);
    try {
      const res = await fetch(`${served.url}/api/v1/json/tags/safe`);
      expect(res.status).toBe(503);
      expect(await res.json()).toStrictEqual({ error: 'Service temporarily unavailable, retry later' });
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(logged.length).toBeGreaterThan(0);
      const health = await fetch(`${served.url}/healthz`);
      expect(health.status).toBe(503);
      expect(await health.json()).toStrictEqual({ status: 'error', database: 'down' });
    } finally {
      await served.close();
      await db.$client.end({ timeout: 1 });
    }
  });

  it('answers a search engine that cannot be reached (every OpenSearch node refusing) with a logged 503 and Retry-After', async () => {
    const nodes = [`http://127.0.0.1:${await freePort()}`, `http://127.0.0.1:${await freePort()}`];
    const engine = new OpenSearchEngine({ node: nodes, indexPrefix: 'nowhere_' });
    const logged: unknown[] = [];
    const app = createApp(composeApp({ config: h.config, db: h.db, engine, logger: { error: (o) => logged.push(o) } }));
    const served = await serveApp(app);
    try {
      const res = await fetch(`${served.url}/api/v1/json/search/images?q=*`);
      expect(res.status).toBe(503);
      expect(await res.json()).toStrictEqual({ error: 'Search temporarily unavailable, retry later' });
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(logged.length).toBeGreaterThan(0);
      // what needs no search still answers
      const tag = await fetch(`${served.url}/api/v1/json/tags/safe`);
      expect(tag.status).toBe(200);
    } finally {
      await served.close();
      await engine.close();
    }
  });

  it('never answers 500 to odd client input', async () => {
    const paths = [
      '/api/v1/json/images/1?page=%ZZ&per_page=%00&filter_id=%FF&key=%00',
      '/api/v1/json/images/1?filter_id=1&filter_id=2&key=a&key=b',
      '/api/v1/json/forums?&&page[]=1&per_page=1e99',
      '/api/v1/json/tags/%FF%FE',
      '/api/v1/json/oembed?url=%00',
      '/api/v1/json/forums/%F0%9F%90%B4/topics/%00/posts/1',
      `/api/v1/json/forums?page=${'9'.repeat(400)}`,
      `/api/v1/json/filters/system?key=${'k'.repeat(5000)}`,
    ];
    for (const path of paths) {
      const res = await h.request(path);
      expect(res.status, path).toBeLessThan(500);
      await res.arrayBuffer();
    }
    expect(h.logged).toEqual([]);
  });
});

describe('key auth', () => {
  it('refuses deactivated and unconfirmed users with 403 JSON, treats unknown and revoked keys as anonymous', async () => {
    const gone = await insertUser(h.db, { deletedAt: new Date() });
    const unconfirmed = await insertUser(h.db, { confirmedAt: null });
    const revokedUser = await insertUser(h.db);
    const goneKey = await insertKey(h.db, gone.id);
    const unconfirmedKey = await insertKey(h.db, unconfirmed.id);
    const revokedKey = await insertKey(h.db, revokedUser.id);
    await h.db.update(s.apiKeys).set({ revokedAt: new Date() }).where(eq(s.apiKeys.userId, revokedUser.id));
    for (const key of [goneKey, unconfirmedKey]) {
      const res = await h.api(`/forums?key=${key}`);
      expect(res.status).toBe(403);
      expect(res.body).toStrictEqual({ error: 'Forbidden' });
    }
    expect((await h.api(`/forums?key=${revokedKey}`)).status).toBe(200);
    expect((await h.api('/forums?key=unknown')).status).toBe(200);
    expect((await h.api(`/filters/user?key=${revokedKey}`)).status).toBe(403);
  });
});

describe('cache headers', () => {
  it('sends Cache-Control, a strong ETag over the body, Vary and CORS', async () => {
    const res = await h.request('/api/v1/json/tags/safe');
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    expect(res.headers.get('etag')).toBe(bodyEtag(text));
    expect(res.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(res.headers.get('vary')).toBe('Accept-Encoding');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a matching If-None-Match with an empty 304 that keeps the validators', async () => {
    const first = await h.request('/api/v1/json/tags/safe');
    const etag = first.headers.get('etag')!;
    await first.text();
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = await h.request('/api/v1/json/tags/safe', { headers: { 'If-None-Match': header } });
      expect(res.status, header).toBe(304);
      expect(await res.text()).toBe('');
      expect(res.headers.get('etag')).toBe(etag);
      expect(res.headers.get('cache-control')).toBe('public, max-age=300');
      expect(res.headers.get('vary')).toBe('Accept-Encoding');
    }
    const miss = await h.request('/api/v1/json/tags/safe', { headers: { 'If-None-Match': '"something else"' } });
    expect(miss.status).toBe(200);
    await miss.text();
    // A change of content changes the tag.
    await h.db.update(s.tags).set({ description: 'v2' }).where(eq(s.tags.slug, 'safe'));
    // the tag page is answered from the cache of rendered tags: wait until its change is heard
    await recordChangeFeedOf(h.db).sync();
    const changed = await h.request('/api/v1/json/tags/safe', { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(((await changed.json()) as { tag: { description: string } }).tag.description).toBe('v2');
  });

  it('marks answers that depend on the key private, and errors no-store', async () => {
    const user = await insertUser(h.db);
    const key = await insertKey(h.db, user.id);
    const image = await insertImage(h.db);
    const anon = await h.request(`/api/v1/json/images/${image.id}`);
    expect(anon.headers.get('cache-control')).toBe('public, max-age=60');
    await anon.text();
    const keyed = await h.request(`/api/v1/json/images/${image.id}?key=${key}`);
    expect(keyed.headers.get('cache-control')).toBe('private, max-age=60');
    await keyed.text();
    const missing = await h.request('/api/v1/json/images/999999');
    expect(missing.headers.get('cache-control')).toBe('no-store');
    expect(missing.headers.get('etag')).toBeNull();
    expect(missing.headers.get('access-control-allow-origin')).toBe('*');
    await missing.text();
  });

  it('answers CORS preflights and HEAD', async () => {
    const pre = await h.request('/api/v1/json/images/1', {
      method: 'OPTIONS',
      headers: { Origin: 'https://client.example', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'x-requested-with' },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('*');
    expect(pre.headers.get('access-control-allow-methods')).toBe('GET, HEAD, OPTIONS');
    expect(pre.headers.get('access-control-allow-headers')).toBe('x-requested-with');
    const head = await h.request('/api/v1/json/tags/safe', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(/^"/);
    expect(await head.text()).toBe('');
  });
});

describe('GET /healthz', () => {
  it('reports the database up with row counts', async () => {
    const res = await h.request('/healthz');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const body = (await res.json()) as { counts: Record<string, number> };
    const count = async (table: Parameters<typeof h.db.$count>[0]) => h.db.$count(table);
    expect(body).toStrictEqual({
      status: 'ok',
      database: 'up',
      counts: {
        images: await count(s.images),
        tags: await count(s.tags),
        users: await count(s.users),
        comments: await count(s.comments),
        posts: await count(s.posts),
        galleries: await count(s.galleries),
        filters: await count(s.filters),
      },
    });
    expect(body.counts.tags).toBeGreaterThan(0);
  });
});

const parseId = (value: string | undefined) => pathParams.image_id.safeParse(value).data;
const parsePaging = (query: { page?: string; per_page?: string }) => toPaging(routeQuery.paged.parse(query));
const textParam = (value: string) => pathParams.tag_id.safeParse(value).data;

describe('parameter parsing', () => {
  it('parses ids strictly', () => {
    expect(parseId('1')).toBe(1);
    expect(parseId('007')).toBe(7);
    expect(parseId('2147483647')).toBe(2147483647);
    for (const bad of [undefined, '', '0', '-1', '+1', '1.0', '1e3', ' 1', '2147483648', '12345678901', 'abc']) expect(parseId(bad)).toBeUndefined();
  });

  it('reads numbers like Integer.parse', () => {
    expect(integerParsePrefix('2abc')).toBe(2);
    expect(integerParsePrefix('-3')).toBe(-3);
    expect(integerParsePrefix('+4x')).toBe(4);
    expect(integerParsePrefix('abc')).toBeUndefined();
    expect(integerParsePrefix('')).toBeUndefined();
    expect(integerParsePrefix('9'.repeat(30))).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('defaults and clamps page and per_page', () => {
    expect(parsePaging({})).toEqual({ page: 1, perPage: 25, offset: 0 });
    expect(parsePaging({ page: '', per_page: '' })).toEqual({ page: 1, perPage: 25, offset: 0 });
    expect(parsePaging({ page: '3', per_page: '10' })).toEqual({ page: 3, perPage: 10, offset: 20 });
    expect(parsePaging({ page: '2abc', per_page: '7xyz' })).toEqual({ page: 2, perPage: 7, offset: 7 });
    expect(parsePaging({ page: '0', per_page: '0' })).toEqual({ page: 1, perPage: 1, offset: 0 });
    expect(parsePaging({ page: '-5', per_page: '500' })).toEqual({ page: 1, perPage: 50, offset: 0 });
    expect(parsePaging({ page: 'x', per_page: 'y' })).toEqual({ page: 1, perPage: 25, offset: 0 });
    expect(parsePaging({ page: '9'.repeat(40) }).page).toBe(1_000_000_000);
    expect(toPaging(routeQuery.paged.parse({ per_page: 'x' }), 75)).toEqual({ page: 1, perPage: 50, offset: 0 });
  });

  it('hands validators each query name once, with every value of a repeated name', () => {
    expect(queryValues('http://x.test/s?q=a+b&q=%C3%A9&page=2&q%5B%5D=c&empty=')).toEqual({ q: ['a b', 'é'], page: '2', 'q[]': 'c', empty: '' });
    expect(queryValues('http://x.test/s')).toEqual({});
  });

  it('accepts only storable text in path values', () => {
    expect(textParam('pegasus+pony')).toBe('pegasus+pony');
    expect(textParam('a\0b')).toBeUndefined();
    expect(textParam('\uD800x')).toBeUndefined();
    expect(textParam('🐴')).toBe('🐴');
    expect(textParam('')).toBeUndefined();
  });

  it('compares entity tags weakly for If-None-Match', () => {
    expect(etagMatches('"a"', '"a"')).toBe(true);
    expect(etagMatches('W/"a"', '"a"')).toBe(true);
    expect(etagMatches('"b", "a"', '"a"')).toBe(true);
    expect(etagMatches('"b"', '"a"')).toBe(false);
    expect(etagMatches(undefined, '"a"')).toBe(false);
  });
});

describe('anonymous names, avatars and tag display order', () => {
  it('derives Background Pony names with PBKDF2-HMAC-SHA256 (100 iterations, 2 bytes)', () => {
    const expected = pbkdf2Sync('42' + '7', 'salt', 100, 2, 'sha256').toString('hex').toUpperCase();
    expect(anonymousName('salt', 42, '7')).toBe(`Background Pony #${expected}`);
    expect(anonymousName('salt', 42, '7')).toMatch(/^Background Pony #[0-9A-F]{4}$/);
    expect(anonymousName('other salt', 42, '7')).not.toBe(anonymousName('salt', 42, '7'));
    expect(bestUserIdentifier({ userId: 5, fingerprint: 'f', ip: '1.2.3.4' })).toBe('5');
    expect(bestUserIdentifier({ userId: null, fingerprint: 'f', ip: '1.2.3.4' })).toBe('f');
    expect(bestUserIdentifier({ userId: null, fingerprint: null, ip: '1.2.3.4' })).toBe('1.2.3.4');
    expect(bestUserIdentifier({ userId: null })).toBe('');
  });

  it('draws a deterministic SVG avatar seeded by the CRC32 of the name', () => {
    expect(crc32('123456789')).toBe(0xcbf43926);
    expect(crc32('')).toBe(0);
    expect(avatarSvg('Background Pony #1A2B')).toBe(avatarSvg('Background Pony #1A2B'));
    expect(avatarDataUri('a')).not.toBe(avatarDataUri('b'));
    const traits = new Set(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].map((n) => avatarTraits(n).species));
    expect(traits.size).toBeGreaterThan(1);
    const svg = Buffer.from(avatarDataUri('Twilight').slice('data:image/svg+xml;base64,'.length), 'base64').toString();
    expect(svg).toBe(avatarSvg('Twilight'));
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="125" height="125"[^>]*>.*<\/svg>$/);
  });

  it('orders tags by category (error, rating, origin, character, oc, species, body-type, content, spoiler, rest) then name', () => {
    const tags = [
      { name: 'zzz', category: null },
      { name: 'spoiler:s1', category: 'spoiler' },
      { name: 'comic:x', category: 'content-fanmade' },
      { name: 'official', category: 'content-official' },
      { name: 'wings', category: 'body-type' },
      { name: 'unicorn', category: 'species' },
      { name: 'oc:me', category: 'oc' },
      { name: 'rarity', category: 'character' },
      { name: 'applejack', category: 'character' },
      { name: 'artist:a', category: 'origin' },
      { name: 'safe', category: 'rating' },
      { name: 'tagme', category: 'error' },
      { name: 'aaa', category: null },
    ];
    expect(displayOrder(tags).map((t) => t.name)).toEqual([
      'tagme', 'safe', 'artist:a', 'applejack', 'rarity', 'oc:me', 'unicorn', 'wings', 'comic:x', 'official', 'spoiler:s1', 'aaa', 'zzz',
    ]);
    expect(compareDisplayOrder({ name: 'a', category: 'rating' }, { name: 'a', category: 'rating' })).toBe(0);
  });
});
