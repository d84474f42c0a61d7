/**
 * Request limits over real HTTP on a real database: budgets per caller and per kind, 429 with
 * Retry-After, costs (wildcards, deep pages, files), automatic bans after repeated violations,
 * refusals of requests with a body held when the caller comes back too soon (the tarpit),
 * operators' bans by user and by IP range, client addresses with and without a trusted proxy, and
 * limits turned off.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { banIp, banUser } from '../../src/contexts/users/bans.js';
import * as s from '../../src/db/schema/index.js';
import { insertKey, insertUser } from '../http/harness.js';
import { freshIp, startOps, type OpsHarness } from './support.js';

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const read = '/api/v1/json/images/1';
const file = '/img/2024/1/1/1/thumb.png';

/** A confirmed user and a key of theirs. */
async function keyUser(h: OpsHarness) {
  const user = await insertUser(h.db, { confirmedAt: new Date() });
  return { user, key: await insertKey(h.db, user.id) };
}

describe('request limits behind a trusted proxy', () => {
  let h: OpsHarness;
  beforeAll(async () => {
    h = await startOps({
      env: {
        TRUST_PROXY: 'true',
        RATE_LIMIT_READ: '4/1h',
        RATE_LIMIT_SEARCH: '6/1h',
        BAN_AFTER_VIOLATIONS: '3',
        BAN_WINDOW_SECONDS: '60',
        BAN_SECONDS: '600',
      },
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers 429 past the budget, with Retry-After and a JSON error', async () => {
    const ip = freshIp();
    for (let i = 0; i < 4; i++) expect((await h.request(read, { ip })).status).toBe(404);
    const res = await h.json(read, { ip });
    expect(res.status).toBe(429);
    const wait = Number(res.headers.get('retry-after'));
    // one request's worth of a 4-per-hour budget: 900 s
    expect(wait).toBeGreaterThan(890);
    expect(wait).toBeLessThanOrEqual(900);
    expect(res.body).toEqual({ error: `Too many requests: slow down and retry after ${wait} seconds` });
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-expose-headers')).toBe('X-Request-Id, Retry-After');
    // another client is not affected
    expect((await h.request(read, { ip: freshIp() })).status).toBe(404);
  });

  it('keeps separate budgets for reads and searches, and for each key user and address', async () => {
    const ip = freshIp();
    for (let i = 0; i < 4; i++) await h.request(read, { ip });
    expect((await h.request(read, { ip })).status).toBe(429);
    // the search budget is untouched
    expect((await h.request('/api/v1/json/search/images?q=safe', { ip })).status).toBe(200);
    // a key's user is charged, not the address it comes from
    const a = await keyUser(h);
    for (let i = 0; i < 4; i++) expect((await h.request(`${read}?key=${a.key}`, { ip })).status).toBe(404);
    expect((await h.request(`${read}?key=${a.key}`, { ip })).status).toBe(429);
    const b = await keyUser(h);
    expect((await h.request(`${read}?key=${b.key}`, { ip })).status).toBe(404);
    // and a user's budget follows them to another address
    expect((await h.request(`${read}?key=${a.key}`, { ip: freshIp() })).status).toBe(429);
  });

  it('charges wildcard searches and deep pages more', async () => {
    const wild = `/api/v1/json/search/images?q=${encodeURIComponent('p*, t*, s*')}`; // 1 + 3
    const ip = freshIp();
    expect((await h.request(wild, { ip })).status).toBe(200); // 6 - 4 = 2 left
    const refused = await h.request(wild, { ip });
    expect(refused.status).toBe(429);
    // a plain search still fits in what is left
    expect((await h.request('/api/v1/json/search/images?q=safe', { ip })).status).toBe(200);

    const deep = '/api/v1/json/search/images?q=safe&page=401&per_page=25'; // offset 10,000: 1 + 2
    const other = freshIp();
    expect((await h.request(deep, { ip: other })).status).toBe(200);
    expect((await h.request(deep, { ip: other })).status).toBe(200);
    expect((await h.request(deep, { ip: other })).status).toBe(429);
    // six plain searches fit where two wildcard searches did not
    const plain = freshIp();
    for (let i = 0; i < 6; i++) expect((await h.request('/api/v1/json/search/tags?q=safe', { ip: plain })).status).toBe(200);
  });

  it('charges stored files a fifth of a read, against the read budget', async () => {
    const ip = freshIp();
    for (let i = 0; i < 15; i++) expect((await h.request(file, { ip })).status, `file ${i}`).toBe(404);
    expect((await h.request(read, { ip })).status).toBe(404); // 15 × 0.2 + 1 = 4
    const res = await h.json(file, { ip });
    expect(res.status).toBe(429);
    const wait = Number(res.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(170); // 0.2 of a token at 4 per hour: 180 s
    expect(wait).toBeLessThanOrEqual(180);
    expect(res.body.error).toBe(`Too many requests: slow down and retry after ${wait} seconds`);
  });

  it('refuses a request that sends a body at once the first time, then after a pause and closing the connection, bans included; a request without one always at once', async () => {
    const ip = freshIp();
    const reverse = '/api/v1/json/search/reverse';
    const withFile = () => {
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(300_000)], { type: 'image/png' }), 'a.png');
      return { method: 'POST', body: form, ip };
    };
    // a reverse search costs 5 of the 6 searches an hour
    expect((await h.json(reverse, withFile())).status).toBe(200);
    const first = await h.json(reverse, withFile());
    expect(first.status).toBe(429);
    expect(first.headers.get('connection')).toBe('keep-alive');
    const sent = Date.now();
    const again = await h.json(reverse, withFile());
    expect(Date.now() - sent).toBeGreaterThanOrEqual(900);
    expect(again.status).toBe(429);
    expect(again.headers.get('connection')).toBe('close');
    expect(again.body).toEqual({ error: `Too many requests: slow down and retry after ${again.headers.get('retry-after')} seconds` });
    // the third violation bans: the caller keeps coming back, so the 403 is held the same way
    const banned = await h.json(reverse, withFile());
    expect(banned.status).toBe(403);
    expect(banned.headers.get('connection')).toBe('close');
    expect(banned.body.error).toMatch(/^Banned: /);
    // without a body, a refusal is answered at once on its kept-alive connection
    const get = await h.json('/api/v1/json/search/images?q=safe', { ip });
    expect(get.status).toBe(403);
    expect(get.headers.get('connection')).toBe('keep-alive');
  });

  it('bans an address that keeps going over, for BAN_SECONDS, on every limited route', async () => {
    const ip = freshIp();
    for (let i = 0; i < 4; i++) await h.request(read, { ip });
    expect((await h.request(read, { ip })).status).toBe(429);
    expect((await h.request(read, { ip })).status).toBe(429);
    const before = Date.now();
    const banned = await h.json(read, { ip });
    expect(banned.status).toBe(403);
    expect(banned.body).toEqual({
      error: 'Banned: Too many requests after being asked to slow down',
      reason: 'Too many requests after being asked to slow down',
      expires_at: expect.stringMatching(RFC3339),
    });
    const expires = Date.parse(banned.body.expires_at);
    expect(expires).toBeGreaterThan(before + 590_000);
    expect(expires).toBeLessThan(Date.now() + 610_000);
    expect(banned.headers.get('cache-control')).toBe('no-store');

    for (const path of [read, file, '/api/v1/json/search/images?q=safe', '/api/v1/json/tags/1']) {
      const res = await h.json(path, { ip });
      expect(res.status, path).toBe(403);
      expect(res.body.error).toMatch(/^Banned: /);
    }
    const rows = await h.db.select().from(s.bans).where(eq(s.bans.automatic, true));
    expect(rows.map((r) => r.ip)).toContain(`${ip}/32`);
    // probes are never limited
    expect((await h.request('/healthz', { ip })).status).toBe(200);
    expect((await h.request(read, { ip: freshIp() })).status).toBe(404);
  });

  it('bans a key user who keeps going over as a user, wherever they come from', async () => {
    const { user, key } = await keyUser(h);
    const ip = freshIp();
    for (let i = 0; i < 4; i++) await h.request(`${read}?key=${key}`, { ip });
    expect((await h.request(`${read}?key=${key}`, { ip })).status).toBe(429);
    expect((await h.request(`${read}?key=${key}`, { ip })).status).toBe(429);
    expect((await h.request(`${read}?key=${key}`, { ip })).status).toBe(403);
    expect((await h.request(`${read}?key=${key}`, { ip: freshIp() })).status).toBe(403);
    const [row] = await h.db.select().from(s.bans).where(eq(s.bans.userId, user.id));
    expect(row).toMatchObject({ automatic: true, ip: null });
    // the address itself is not banned
    expect((await h.request(read, { ip })).status).toBe(404);
  });

  it("answers 403 to an operator's ban of a user, on every route their key is used", async () => {
    const { user, key } = await keyUser(h);
    const until = new Date(Date.now() + 7 * 86_400_000);
    await banUser(h.db, user.name, { reason: 'Scraping the whole site', until });
    for (const path of [`${read}?key=${key}`, `/api/v1/json/search/images?q=safe&key=${key}`, `/api/v1/json/filters/system?key=${key}`]) {
      const res = await h.json(path, { ip: freshIp() });
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({
        error: 'Banned: Scraping the whole site',
        reason: 'Scraping the whole site',
        expires_at: `${until.toISOString().slice(0, 19)}Z`,
      });
    }
    // without the key the same client is anonymous, and not banned
    expect((await h.request(read, { ip: freshIp() })).status).toBe(404);
  });

  it("answers 403 to an operator's ban of an IP range, with or without a key, files included", async () => {
    await banIp(h.db, '203.0.113.0/24', { reason: 'Abusive crawler', until: null });
    const { key } = await keyUser(h);
    for (const [path, ip] of [
      [read, '203.0.113.7'],
      [`${read}?key=${key}`, '203.0.113.8'],
      [file, '203.0.113.9'],
      ['/api/v1/json/search/images?q=safe', '203.0.113.10'],
    ] as const) {
      const res = await h.json(path, { ip });
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({ error: 'Banned: Abusive crawler', reason: 'Abusive crawler', expires_at: null });
    }
    expect((await h.request(read, { ip: '203.0.114.7' })).status).toBe(404);
  });

  it('takes the last X-Forwarded-For entry, the one our proxy wrote', async () => {
    await banIp(h.db, '192.0.2.0/24', { reason: 'Range ban', until: null });
    expect((await h.request(read, { headers: { 'X-Forwarded-For': '192.0.2.5, 198.51.100.7' } })).status).toBe(404);
    expect((await h.request(read, { headers: { 'X-Forwarded-For': '198.51.100.8, 192.0.2.5' } })).status).toBe(403);
    // an IPv4-mapped IPv6 address is its IPv4 address
    expect((await h.request(read, { headers: { 'X-Forwarded-For': '::ffff:192.0.2.6' } })).status).toBe(403);
  });
});

describe('client address without a trusted proxy', () => {
  let h: OpsHarness;
  beforeAll(async () => {
    h = await startOps();
    await banIp(h.db, '127.0.0.0/8', { reason: 'Loopback is banned here', until: null });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is the socket address: X-Forwarded-For is ignored', async () => {
    const res = await h.json(read, { headers: { 'X-Forwarded-For': '198.51.100.20' } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Banned: Loopback is banned here');
    expect((await h.request('/readyz')).status).toBe(200);
    expect((await h.request('/metrics')).status).toBe(200);
  });
});

describe('RATE_LIMITS=off', () => {
  let h: OpsHarness;
  beforeAll(async () => {
    h = await startOps({ env: { RATE_LIMITS: 'off', RATE_LIMIT_READ: '1/1h', RATE_LIMIT_SEARCH: '1/1h', TRUST_PROXY: 'true' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('spends no budget, but bans still hold', async () => {
    const ip = freshIp();
    for (let i = 0; i < 12; i++) {
      expect((await h.request(read, { ip })).status).toBe(404);
      expect((await h.request(file, { ip })).status).toBe(404);
      expect((await h.request('/api/v1/json/search/images?q=a*', { ip })).status).toBe(200);
    }
    await banIp(h.db, '203.0.113.0/24', { reason: 'Still banned', until: null });
    const res = await h.json(read, { ip: '203.0.113.1' });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('Banned: Still banned');
  });
});
