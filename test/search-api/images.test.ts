/**
 * GET /search/images and /search on the fixture board: visibility, every sort in both
 * directions, random and gallery orders, relevance with boosts, paging, interactions, `my:`,
 * filters (parameter and query field), the Default filter and `spoilered`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMAGE_SORT_FIELDS } from '../../src/search/requests/index.js';
import { insertKey, insertUser } from '../http/harness.js';
import { assertResource } from '../support/resources.js';
import { IMAGE, INTERACTION } from '../support/spec-shapes.js';
import { buildBoard, expectedOrder, type Board, type ImageModel } from './fixtures.js';
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

const search = (params: Record<string, string | number | undefined>) => h.ok(`/search/images${qs(params)}`);
const ids = async (params: Record<string, string | number | undefined>) => idsOf((await search(params)).images);
const byLabel = (label: string) => b.images.find((m) => m.label === label)!;
const idOf = (label: string) => byLabel(label).id;
const withTag = (tag: string) => (m: ImageModel) => m.tags.includes(tag);
/** Default order: first_seen_at desc, id desc. */
const newestFirst = (list: ImageModel[]) => expectedOrder(list, 'first_seen_at', 'desc');

describe('visibility', () => {
  it('leaves out unapproved, deleted and merged images (Everything filter)', async () => {
    const body = await search({ q: 'sortable', filter_id: b.filters.everything.id, per_page: 50 });
    expect(body.total).toBe(14);
    expect(idsOf(body.images)).toEqual(newestFirst(b.s));
    const excluded = Object.values(b.excluded).map((m) => m.id);
    expect(idsOf(body.images).some((id) => excluded.includes(id))).toBe(false);
  });

  it('anonymous callers get the Default filter: images with its hidden tags are left out', async () => {
    const body = await search({ q: 'sortable', per_page: 50 });
    const expected = b.s.filter((m) => !m.tags.includes('explicit'));
    expect(body.total).toBe(expected.length);
    expect(idsOf(body.images)).toEqual(newestFirst(expected));
  });

  it('a key user does not see their own hidden images unless hidden=1', async () => {
    const without = await ids({ q: 'sortable', filter_id: b.filters.everything.id, per_page: 50, key: b.keys.alice });
    expect(without).not.toContain(idOf('S3'));
    expect(without).toHaveLength(13);
    const withHidden = await ids({ q: 'sortable', filter_id: b.filters.everything.id, per_page: 50, key: b.keys.alice, hidden: 1 });
    expect(withHidden).toEqual(newestFirst(b.s));
  });

  it('del is for moderators: 1 includes deleted and merged images, only/deleted restrict to them', async () => {
    const everything = b.filters.everything.id;
    const anonymous = await search({ q: 'sortable', filter_id: everything, per_page: 50, del: 1 });
    expect(anonymous.total).toBe(14);
    const mod = await search({ q: 'sortable', filter_id: everything, per_page: 50, del: 1, key: b.keys.mod });
    expect(mod.total).toBe(16);
    expect(idsOf(mod.images)).toEqual(newestFirst([...b.s, b.excluded.deleted, b.excluded.merged]));
    const deleted = mod.images.find((i: { id: number }) => i.id === b.excluded.deleted.id);
    // listed as the reference's stub: nothing of the file, its tags or its uploader
    expect(Object.keys(deleted).sort()).toEqual(['created_at', 'deletion_reason', 'duplicate_of', 'first_seen_at', 'hidden_from_users', 'id', 'updated_at']);
    expect(deleted).toMatchObject({ hidden_from_users: true, deletion_reason: 'Rule #0', duplicate_of: null });
    const merged = mod.images.find((i: { id: number }) => i.id === b.excluded.merged.id);
    expect(Object.keys(merged)).toHaveLength(7);
    expect(merged).toMatchObject({ hidden_from_users: true, deletion_reason: null, duplicate_of: expect.any(Number) });
    expect(await ids({ q: 'sortable', filter_id: everything, del: 'only', key: b.keys.mod })).toEqual(
      newestFirst([b.excluded.deleted, b.excluded.merged]),
    );
    expect(await ids({ q: 'sortable', filter_id: everything, del: 'deleted', key: b.keys.mod })).toEqual([b.excluded.deleted.id]);
    // unapproved images are never listed
    expect(mod.images.map((i: { id: number }) => i.id)).not.toContain(b.excluded.unapproved.id);
  });

  it('answers the spec shape for every listed image, and /search is the same endpoint', async () => {
    const body = await search({ q: 'sortable', per_page: 50 });
    for (const image of body.images) assertResource(image, IMAGE);
    const alias = await h.ok(`/search${qs({ q: 'sortable', per_page: 50 })}`);
    expect(alias).toEqual(body);
  });
});

describe('sorting (sf, sd)', () => {
  const fields = IMAGE_SORT_FIELDS.filter((f) => f !== 'id');
  it.each(['asc', 'desc'] as const)('sf=id sd=%s', async (sd) => {
    const everything = b.filters.everything.id;
    expect(await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf: 'id', sd })).toEqual(expectedOrder(b.s, 'id', sd));
  });

  for (const sf of fields) {
    it.each(['asc', 'desc'] as const)(`sf=${sf} sd=%s`, async (sd) => {
      const everything = b.filters.everything.id;
      const got = await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf, sd });
      expect(got).toEqual(expectedOrder(b.s, sf, sd));
    });
  }

  it('defaults to first_seen_at desc; an unknown sd is desc and an unknown sf the default field', async () => {
    const everything = b.filters.everything.id;
    const expected = expectedOrder(b.s, 'first_seen_at', 'desc');
    expect(await ids({ q: 'sortable', filter_id: everything, per_page: 50 })).toEqual(expected);
    expect(await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf: 'nonsense', sd: 'sideways' })).toEqual(expected);
    expect(await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf: 'score', sd: 'up' })).toEqual(expectedOrder(b.s, 'score', 'desc'));
  });

  it('random:SEED is one order for a seed, the same across pages', async () => {
    const everything = b.filters.everything.id;
    const full = await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf: 'random:4242' });
    expect([...full].sort((x, y) => x - y)).toEqual(b.s.map((m) => m.id).sort((x, y) => x - y));
    const paged: number[] = [];
    for (let page = 1; page <= 3; page++) {
      paged.push(...(await ids({ q: 'sortable', filter_id: everything, per_page: 5, page, sf: 'random:4242' })));
    }
    expect(paged).toEqual(full);
    expect(await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf: 'random:4242' })).toEqual(full);
    const other = await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf: 'random:7' });
    expect(other).not.toEqual(full);
    expect(await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf: 'random:4242', sd: 'asc' })).toEqual([...full].reverse());
    expect(await ids({ q: 'sortable', filter_id: everything, per_page: 50, sf: 'random:4242xyz' })).toEqual(full);
  });

  it('random without a seed still lists every match once', async () => {
    const body = await search({ q: 'sortable', filter_id: b.filters.everything.id, per_page: 50, sf: 'random' });
    expect(body.total).toBe(14);
    expect(new Set(idsOf(body.images)).size).toBe(14);
    // a seed drawn for each request, asked again with the same text: another order (of 14! orders)
    const orders = new Set<string>();
    for (let i = 0; i < 3; i++) orders.add(idsOf((await search({ q: 'sortable', filter_id: b.filters.everything.id, per_page: 50, sf: 'random' })).images).join());
    expect(orders.size).toBeGreaterThan(1);
  });

  it('gallery_id:N orders by gallery position in both directions (hidden members left out)', async () => {
    const g = b.galleries.best;
    const visible = b.bestByPosition.filter((id) => id !== b.excluded.deleted.id);
    const params = { q: `gallery_id:${g}`, filter_id: b.filters.everything.id, sf: `gallery_id:${g}` };
    expect(await ids({ ...params, sd: 'asc' })).toEqual(visible);
    expect(await ids({ ...params, sd: 'desc' })).toEqual([...visible].reverse());
    expect((await search({ ...params, sd: 'desc' })).total).toBe(4);
  });

  it('_score orders by relevance: boosted terms first', async () => {
    const everything = b.filters.everything.id;
    const got = await ids({ q: 'solo^5 || pony', filter_id: everything, per_page: 50, sf: '_score', sd: 'desc' });
    const both = b.s.filter((m) => m.tags.includes('solo') && m.tags.includes('pony')).map((m) => m.id);
    const soloOnly = b.s.filter((m) => m.tags.includes('solo') && !m.tags.includes('pony')).map((m) => m.id);
    const ponyOnly = b.s.filter((m) => !m.tags.includes('solo') && m.tags.includes('pony')).map((m) => m.id);
    expect(got).toHaveLength(both.length + soloOnly.length + ponyOnly.length);
    expect(new Set(got.slice(0, both.length))).toEqual(new Set(both));
    expect(new Set(got.slice(both.length, both.length + soloOnly.length))).toEqual(new Set(soloOnly));
    expect(new Set(got.slice(both.length + soloOnly.length))).toEqual(new Set(ponyOnly));
    const reversed = await ids({ q: 'solo || pony^5', filter_id: everything, per_page: 50, sf: '_score', sd: 'desc' });
    expect(new Set(reversed.slice(both.length, both.length + ponyOnly.length))).toEqual(new Set(ponyOnly));
  });
});

describe('paging', () => {
  it('pages through the results with a stable total', async () => {
    const everything = b.filters.everything.id;
    const all = newestFirst(b.s);
    const pages: number[] = [];
    for (let page = 1; page <= 3; page++) {
      const body = await search({ q: 'sortable', filter_id: everything, per_page: 6, page });
      expect(body.total).toBe(14);
      expect(body.images).toHaveLength(page < 3 ? 6 : 2);
      pages.push(...idsOf(body.images));
    }
    expect(pages).toEqual(all);
  });

  it('past the end: an empty list with the real total', async () => {
    for (const page of [4, 1000, 999_999_999]) {
      const body = await search({ q: 'sortable', filter_id: b.filters.everything.id, per_page: 5, page });
      expect(body).toEqual({ images: [], interactions: [], total: 14 });
    }
  });

  it('per_page defaults to 25, is clamped to 1..50 and read like Integer.parse; page likewise', async () => {
    const q = 'sortable';
    const f = b.filters.everything.id;
    expect((await search({ q: '*', filter_id: f })).images).toHaveLength(14);
    expect(await ids({ q, filter_id: f, per_page: 0 })).toHaveLength(1);
    expect(await ids({ q, filter_id: f, per_page: -5 })).toHaveLength(1);
    expect(await ids({ q, filter_id: f, per_page: 'abc' })).toHaveLength(14);
    expect(await ids({ q, filter_id: f, per_page: '3abc' })).toHaveLength(3);
    expect(await ids({ q, filter_id: f, per_page: 5000 })).toHaveLength(14);
    const all = newestFirst(b.s);
    expect(await ids({ q, filter_id: f, per_page: 3, page: '' })).toEqual(all.slice(0, 3));
    expect(await ids({ q, filter_id: f, per_page: 3, page: '2abc' })).toEqual(all.slice(3, 6));
    expect(await ids({ q, filter_id: f, per_page: 3, page: '-4' })).toEqual(all.slice(0, 3));
    expect(await ids({ q, filter_id: f, per_page: 3, page: 'x' })).toEqual(all.slice(0, 3));
  });

  it('a key user’s images_per_page setting is their default page size', async () => {
    const user = await insertUser(h.db, { imagesPerPage: 4 });
    const key = await insertKey(h.db, user.id);
    const f = b.filters.everything.id;
    expect(await ids({ q: 'sortable', filter_id: f, key })).toEqual(newestFirst(b.s).slice(0, 4));
    expect(await ids({ q: 'sortable', filter_id: f, key, page: 2 })).toEqual(newestFirst(b.s).slice(4, 8));
    expect(await ids({ q: 'sortable', filter_id: f, key, per_page: 6 })).toHaveLength(6);
    // the other searches do not use it
    expect((await h.ok(`/search/tags${qs({ q: '*', key })}`)).tags).toHaveLength(12);
  });

  it('ignores unknown and empty parameters (limit, distance, a leading empty one)', async () => {
    const res = await h.api(`/search/images?&per_page=1&q=sortable&limit=3&distance=0.25&filter_id=${b.filters.everything.id}`);
    expect(res.status).toBe(200);
    expect(res.body.images).toHaveLength(1);
    expect(res.body.total).toBe(14);
  });

  it('q=* matches everything the filter lets through', async () => {
    const body = await search({ q: '*', filter_id: b.filters.everything.id, per_page: 50 });
    expect(body.total).toBe(14);
  });
});

describe('interactions', () => {
  it('lists the key user’s hides, faves and votes on the listed images', async () => {
    const body = await search({ q: 'sortable', filter_id: b.filters.everything.id, per_page: 50, key: b.keys.alice, hidden: 1 });
    const alice = b.users.alice;
    expect(body.interactions).toEqual([
      { image_id: idOf('S3'), user_id: alice, interaction_type: 'hidden', value: '' },
      { image_id: idOf('S0'), user_id: alice, interaction_type: 'faved', value: '' },
      { image_id: idOf('S2'), user_id: alice, interaction_type: 'faved', value: '' },
      { image_id: idOf('S0'), user_id: alice, interaction_type: 'voted', value: 'up' },
      { image_id: idOf('S1'), user_id: alice, interaction_type: 'voted', value: 'up' },
      { image_id: idOf('S5'), user_id: alice, interaction_type: 'voted', value: 'down' },
    ]);
    for (const i of body.interactions) assertResource(i, INTERACTION);
  });

  it('only for the images on the page', async () => {
    const body = await search({ q: `id:${idOf('S1')}`, filter_id: b.filters.everything.id, key: b.keys.alice });
    expect(body.interactions).toEqual([{ image_id: idOf('S1'), user_id: b.users.alice, interaction_type: 'voted', value: 'up' }]);
  });

  it('is [] for anonymous callers and for a key user without any', async () => {
    expect((await search({ q: 'sortable', filter_id: b.filters.everything.id })).interactions).toEqual([]);
    expect((await search({ q: 'sortable', filter_id: b.filters.everything.id, key: b.keys.mod })).interactions).toEqual([]);
  });
});

describe('my: queries', () => {
  const f = () => b.filters.everything.id;
  const mine = (q: string, extra: Record<string, string | number> = {}) => ids({ q, filter_id: f(), per_page: 50, key: b.keys.alice, sf: 'id', sd: 'asc', ...extra });
  const sorted = (labels: string[]) => labels.map(idOf).sort((x, y) => x - y);

  it('my:faves, my:upvotes, my:downvotes, my:uploads (anonymous uploads included), my:hidden', async () => {
    expect(await mine('my:faves')).toEqual(sorted(['S0', 'S2']));
    expect(await mine('my:upvotes')).toEqual(sorted(['S0', 'S1']));
    expect(await mine('my:downvotes')).toEqual(sorted(['S5']));
    expect(await mine('my:uploads')).toEqual(sorted(['S7', 'S8']));
    expect(await mine('my:hidden', { hidden: 1 })).toEqual(sorted(['S3']));
    expect(await mine('my:hidden')).toEqual([]);
    expect(await mine('my:faves || my:downvotes')).toEqual(sorted(['S0', 'S2', 'S5']));
  });

  it('my:faves is per user', async () => {
    expect(await ids({ q: 'my:faves', filter_id: f(), key: b.keys.bob })).toEqual([idOf('S4')]);
  });

  it('my:watched: watched tags or the watch query, minus the exclude query', async () => {
    // Alice watches `twilight sparkle` and `artist:painter`, excluding `solo`.
    expect(await mine('my:watched')).toEqual(sorted(['S5', 'S7']));
    expect(await mine('my:watched, -artist:painter')).toEqual(sorted(['S5']));
  });

  it('my:watched leaves out what the current filter spoilers when the user asks (no_spoilered_in_watched)', async () => {
    const all = b.s.filter((m) => !m.tags.includes('explicit'));
    const watcher = async (noSpoileredInWatched: boolean) => {
      const user = await insertUser(h.db, { watchedTagIds: [b.tags.sortable!.id], noSpoileredInWatched });
      return insertKey(h.db, user.id);
    };
    const byId = (list: ImageModel[]) => list.map((m) => m.id).sort((x, y) => x - y);
    // the Default filter: hides explicit, spoilers questionable (S3) and, by its complex expression, spoilme (S4)
    expect(await ids({ q: 'my:watched', per_page: 50, sf: 'id', sd: 'asc', key: await watcher(false) })).toEqual(byId(all));
    expect(await ids({ q: 'my:watched', per_page: 50, sf: 'id', sd: 'asc', key: await watcher(true) })).toEqual(
      byId(all.filter((m) => m.label !== 'S3' && m.label !== 'S4')),
    );
  });

  it('anonymous my: is 400 with the reference message; an unknown value too', async () => {
    for (const q of ['my:faves', 'safe, my:watched']) {
      const res = await h.api(`/search/images${qs({ q })}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ position: expect.any(Object), error: "You must be logged in to use `my' queries." });
    }
    const res = await h.api(`/search/images${qs({ q: 'my:stuff', key: b.keys.alice })}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ position: expect.any(Object), error: "Unknown `my' value." });
  });
});

describe('the query syntax clients send', () => {
  it('comma AND, id:N, id.lt:N cursor paging, uploader_id:N, faved_by_id:N', async () => {
    const f = b.filters.everything.id;
    const byIdDesc = (list: ImageModel[]) => list.map((m) => m.id).sort((x, y) => y - x);
    expect(await ids({ q: 'sortable, solo', filter_id: f, sf: 'id', sd: 'desc' })).toEqual(byIdDesc(b.s.filter(withTag('solo'))));
    expect(await ids({ q: `id:${idOf('S6')}`, filter_id: f })).toEqual([idOf('S6')]);
    // a strict client pages by cursor: q=<q>,id.lt:<last id>
    const firstPage = await ids({ q: 'sortable', filter_id: f, sf: 'id', sd: 'desc', per_page: 5 });
    const next = await ids({ q: `sortable,id.lt:${firstPage.at(-1)}`, filter_id: f, sf: 'id', sd: 'desc', per_page: 5 });
    expect([...firstPage, ...next]).toEqual(byIdDesc(b.s).slice(0, 10));
    // S8 is Alice's anonymous upload: not hers by uploader_id
    expect(await ids({ q: `uploader_id:${b.users.alice}`, filter_id: f })).toEqual([idOf('S7')]);
    expect(await ids({ q: `faved_by_id:${b.users.alice}`, filter_id: f, sf: 'id', sd: 'asc' })).toEqual([idOf('S0'), idOf('S2')].sort((x, y) => x - y));
  });
});

describe('filters', () => {
  const sortable = (pred: (m: ImageModel) => boolean = () => true) => newestFirst(b.s.filter(pred));

  it('filter_id param: a visible filter replaces the current one', async () => {
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.bobPublic.id })).toEqual(sortable((m) => !withTag('solo')(m)));
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.hidesBig.id })).toEqual(sortable((m) => m.width < 800));
  });

  it('filter_id param: a filter the caller may not see is ignored (Default applies)', async () => {
    const defaultView = sortable((m) => !withTag('explicit')(m));
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.bobPrivate.id })).toEqual(defaultView);
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.bobPrivate.id, key: b.keys.alice, hidden: 1 })).toEqual(defaultView);
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: 'junk' })).toEqual(defaultView);
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: 999_999 })).toEqual(defaultView);
  });

  it('filter_id param: own private filters, and every filter for moderators', async () => {
    const noPony = sortable((m) => !withTag('pony')(m));
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.bobPrivate.id, key: b.keys.bob })).toEqual(
      noPony.filter((id) => id !== idOf('S0')),
    );
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.bobPrivate.id, key: b.keys.mod })).toEqual(noPony);
    // Alice's own filter hides pony by tag and solo by its complex expression.
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.aliceOwn.id, key: b.keys.alice, hidden: 1 })).toEqual(
      sortable((m) => !withTag('pony')(m) && !withTag('solo')(m)),
    );
  });

  it('a filter whose hidden complex expression does not compile hides nothing by it, and is logged once', async () => {
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.broken.id })).toEqual(sortable());
    expect(await ids({ q: 'sortable', per_page: 50, filter_id: b.filters.broken.id, sf: 'id' })).toHaveLength(14);
    const reports = h.logged.filter((l) => l.level === 'warn' && (l.obj as { filterId?: number }).filterId === b.filters.broken.id);
    expect(reports).toHaveLength(1);
  });

  it('filter_id: query field, for visible filters only, with the reference message otherwise', async () => {
    const q = (id: number) => `sortable, filter_id:${id}`;
    const f = b.filters.everything.id;
    expect(await ids({ q: q(b.filters.bobPublic.id), filter_id: f, per_page: 50 })).toEqual(sortable((m) => !withTag('solo')(m)));
    expect(await ids({ q: q(b.filters.hidesBig.id), filter_id: f, per_page: 50 })).toEqual(sortable((m) => m.width < 800));
    expect(await ids({ q: q(b.filters.bobPrivate.id), filter_id: f, per_page: 50, key: b.keys.bob })).toEqual(
      sortable((m) => !withTag('pony')(m) && m.label !== 'S0'),
    );
    for (const [id, key] of [
      [b.filters.bobPrivate.id, undefined],
      [b.filters.bobPrivate.id, b.keys.alice],
      [b.filters.aliceOwn.id, b.keys.bob],
      [987_654, undefined],
    ] as const) {
      const res = await h.api(`/search/images${qs({ q: q(id), key })}`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ position: expect.any(Object), error: `Invalid filter \`${id}\`.` });
    }
  });

  it('spoilered: true for the current filter’s spoilered tags and its spoilered complex expression', async () => {
    const body = await search({ q: 'sortable', per_page: 50 });
    const spoilered = new Set(body.images.filter((i: { spoilered: boolean }) => i.spoilered).map((i: { id: number }) => i.id));
    expect(spoilered).toEqual(new Set([idOf('S3'), idOf('S4')]));
    const everything = await search({ q: 'sortable', per_page: 50, filter_id: b.filters.everything.id });
    expect(everything.images.every((i: { spoilered: boolean }) => !i.spoilered)).toBe(true);
  });
});

describe('errors', () => {
  it.each([
    ['(safe', 'Imbalanced parentheses.'],
    ['safe)', 'junk at end of expression: )'],
    ['safe, , solo', 'Expected a term.'],
    ['width:1.5', "expected a signed integer, like `3' or `-10', starting at: .5"],
    ['width.gt:abc', "expected a signed integer, like `3' or `-10', starting at: abc"],
    ['gallery_id:x', "Invalid gallery `x'."],
    ['safe^-1', 'Boost value must be non-negative.'],
  ])('q=%s → 400 with the reference message', async (q, message) => {
    const res = await h.api(`/search/images${qs({ q })}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ position: expect.any(Object), error: message });
  });

  it('a moderator’s ip: with a prefix on an IPv4-mapped address is 400 (the engine would refuse it)', async () => {
    const res = await h.api(`/search/images${qs({ q: 'ip:::ffff:10.0.0.0/104', key: b.keys.mod })}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: expect.stringContaining('IPv4-mapped'), position: expect.any(Object) });
  });

  it('a missing or empty q is 200 with nothing', async () => {
    for (const path of ['/search/images', '/search/images?q=', '/search/images?q=%20%20', '/search']) {
      const res = await h.api(path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ images: [], interactions: [], total: 0 });
    }
  });

  it('q given twice or as a list is 400 "search query is not a string"', async () => {
    for (const path of ['/search/images?q=safe&q=solo', '/search/images?q[]=safe', '/search/images?q%5B%5D=safe&q%5B%5D=solo', '/search?q[a]=safe']) {
      const res = await h.api(path);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'search query is not a string' });
    }
  });
});
