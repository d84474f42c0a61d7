import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertResource } from '../support/resources.js';
import { FILTER } from '../support/spec-shapes.js';
import { insertFilter, insertKey, insertUser, startHarness, type Harness } from './harness.js';

let h: Harness;
let owner: { id: number };
let ownerKey: string;
let strangerKey: string;
let adminKey: string;
const ids: Record<string, number> = {};

beforeAll(async () => {
  h = await startHarness();
  owner = await insertUser(h.db);
  ownerKey = await insertKey(h.db, owner.id);
  strangerKey = await insertKey(h.db, (await insertUser(h.db)).id);
  adminKey = await insertKey(h.db, (await insertUser(h.db, { role: 'admin' })).id);
  ids.default = (await insertFilter(h.db, { name: 'Default', system: true, description: 'The default', hiddenTagIds: [3, 1], spoileredTagIds: [2], userCount: 10 })).id;
  ids.everything = (await insertFilter(h.db, { name: 'Everything', system: true })).id;
  ids.mine = (await insertFilter(h.db, { name: 'Mine', userId: owner.id, hiddenComplexStr: 'score.lt:0', spoileredComplexStr: 'solo\nsafe' })).id;
  ids.shared = (await insertFilter(h.db, { name: 'Shared', userId: owner.id, public: true })).id;
  for (let i = 0; i < 3; i++) ids[`sys${i}`] = (await insertFilter(h.db, { name: `System ${i}`, system: true })).id;
});
afterAll(async () => {
  await h?.close();
});

describe('GET /filters/:filter_id', () => {
  it('answers the exact body of a system filter', async () => {
    const res = await h.api(`/filters/${ids.default}`);
    expect(res.status).toBe(200);
    expect(res.body).toStrictEqual({
      filter: {
        id: ids.default,
        name: 'Default',
        description: 'The default',
        public: false,
        system: true,
        user_count: 10,
        user_id: null,
        hidden_tag_ids: [3, 1],
        spoilered_tag_ids: [2],
        hidden_complex: '',
        spoilered_complex: '',
      },
    });
    assertResource(res.body.filter, FILTER);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
  });

  it('shows a private filter to its owner and to moderators and admins only', async () => {
    const anon = await h.api(`/filters/${ids.mine}`);
    expect(anon.status).toBe(404);
    expect(anon.body).toStrictEqual({ error: 'Not found' });
    expect((await h.api(`/filters/${ids.mine}?key=${strangerKey}`)).status).toBe(404);
    const own = await h.api(`/filters/${ids.mine}?key=${ownerKey}`);
    expect(own.status).toBe(200);
    expect(own.body.filter).toMatchObject({ user_id: owner.id, hidden_complex: 'score.lt:0', spoilered_complex: 'solo\nsafe' });
    assertResource(own.body.filter, FILTER);
    expect(own.headers.get('cache-control')).toBe('private, max-age=300');
    expect((await h.api(`/filters/${ids.mine}?key=${adminKey}`)).status).toBe(200);
    expect((await h.api(`/filters/${ids.shared}`)).body.filter).toMatchObject({ public: true, user_id: owner.id });
  });

  it.each(['0', '999999', 'abc', '1.5', '2147483648', '-1'])('answers 404 for filter id %s', async (id) => {
    const res = await h.api(`/filters/${id}`);
    expect(res.status).toBe(404);
    expect(res.body).toStrictEqual({ error: 'Not found' });
  });
});

describe('GET /filters/system', () => {
  it('lists system filters by id with total, paged', async () => {
    const res = await h.api('/filters/system');
    expect(res.status).toBe(200);
    expect(res.body.filters.map((f: { id: number }) => f.id)).toEqual([ids.default, ids.everything, ids.sys0, ids.sys1, ids.sys2]);
    expect(res.body.total).toBe(5);
    for (const f of res.body.filters) assertResource(f, FILTER);
    expect((await h.api('/filters/system?page=2&per_page=2')).body.filters.map((f: { id: number }) => f.id)).toEqual([ids.sys0, ids.sys1]);
    expect((await h.api('/filters/system?page=4&per_page=2')).body).toStrictEqual({ filters: [], total: 5 });
    expect((await h.api('/filters/system?per_page=100')).body.filters).toHaveLength(5);
  });
});

describe('GET /filters/user', () => {
  it('lists the key user’s filters', async () => {
    const res = await h.api(`/filters/user?key=${ownerKey}`);
    expect(res.status).toBe(200);
    expect(res.body.filters.map((f: { id: number }) => f.id)).toEqual([ids.mine, ids.shared]);
    expect(res.body.total).toBe(2);
    for (const f of res.body.filters) assertResource(f, FILTER);
    expect(res.headers.get('cache-control')).toBe('private, max-age=60');
    expect((await h.api(`/filters/user?key=${strangerKey}`)).body).toStrictEqual({ filters: [], total: 0 });
  });

  it('answers 403 {"error":"Forbidden"} without a valid key', async () => {
    for (const q of ['', '?key=', '?key=bogus']) {
      const res = await h.api(`/filters/user${q}`);
      expect(res.status).toBe(403);
      expect(res.body).toStrictEqual({ error: 'Forbidden' });
    }
  });
});
