/**
 * The search workbench's API: query errors with their place, explanations of a query's clauses
 * and of a filter on hand-checked images, the filter test bench held against the search engine
 * (the same filter applied by `/search/images`, and each clause searched on its own), and tag
 * autocomplete (ranking, typos, words in any order, namespaces, the term at the caret, updates
 * from the outbox).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { insertFilter, insertImage, insertKey, insertTag, insertUser } from '../http/harness.js';
import { qs, startSearchHarness, untilSearchShows, type SearchHarness } from './harness.js';

let h: SearchHarness;
type Tag = typeof s.tags.$inferSelect;
const t: Record<string, Tag> = {};
let imageA: number;
let imageB: number;

beforeAll(async () => {
  h = await startSearchHarness();
  const counts: [string, number, Partial<typeof s.tags.$inferInsert>?][] = [
    ['safe', 900, { category: 'rating' }],
    ['solo', 700],
    ['twilight sparkle', 500, { category: 'character' }],
    ['twilight velvet', 40, { category: 'character' }],
    ['rainbow dash', 450, { category: 'character' }],
    ['cute', 300],
    ['artist:john doe', 30, { category: 'origin' }],
    ['artist:jane', 60, { category: 'origin' }],
    ['sole', 3],
  ];
  for (const [name, imagesCount, extra] of counts) t[name] = await insertTag(h.db, name, { imagesCount, ...extra });
  t.ts = await insertTag(h.db, 'ts', { aliasedTagId: t['twilight sparkle']!.id });
  // Hand-checked images: A = safe, solo, twilight sparkle, score 10; B = safe, rainbow dash, cute, score 100.
  imageA = (await insertImage(h.db, { tags: [t.safe!, t.solo!, t['twilight sparkle']!], values: { score: 10, upvotesCount: 10 } })).id;
  imageB = (await insertImage(h.db, { tags: [t.safe!, t['rainbow dash']!, t.cute!], values: { score: 100, upvotesCount: 100 } })).id;
  // A small board for the bench: every combination of four tags, scores 0..150.
  const pool = [t.solo!, t['twilight sparkle']!, t['rainbow dash']!, t.cute!];
  for (let mask = 0; mask < 16; mask++) {
    for (let k = 0; k < 2; k++) {
      const tags = [t.safe!, ...pool.filter((_, i) => mask & (1 << i))];
      await insertImage(h.db, { tags, values: { score: (mask * 10 + k * 5) % 150, upvotesCount: (mask * 10 + k * 5) % 150 } });
    }
  }
  await h.reindex();
});

afterAll(async () => {
  await h?.close();
});

const explain = (params: Record<string, string | number | undefined>) => h.api(`/search/explain${qs({ index: 'images', ...params })}`);

describe('query errors', () => {
  // One case for each kind of error the parser and compiler raise, with the offset counted by hand.
  const cases: [string, string, RegExp, number][] = [
    ['expected a term at the end', 'safe, ', /^Expected a term\.$/, 6],
    ['expected a term after an operator', 'safe || , solo', /^Expected a term\.$/, 8],
    ['imbalanced parentheses (at the one left open)', 'safe, (solo', /^Imbalanced parentheses\.$/, 6],
    ['junk at the end', 'safe) solo', /^junk at end of expression/, 4],
    ['negative boost', 'safe^-1', /^Boost value must be non-negative\.$/, 4],
    ['bad value (at the value)', 'safe, score.gt:abc', /./, 15],
    ['too deep', `${'('.repeat(65)}safe${')'.repeat(65)}`, /nested too deeply/, 64],
  ];
  for (const [what, q, message, offset] of cases) {
    it(`${what}: 400 with the reference message first, then its place`, async () => {
      const res = await explain({ q });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)[0]).toBe('error');
      expect(res.body.error).toMatch(message);
      expect(res.body.position).toEqual({ offset, line: 1, column: offset + 1 });
      expect(res.body.excerpt.text.slice(res.body.excerpt.at)).toBe(q.slice(offset, offset + 24));
    });
  }

  it('counts lines and columns, and the search endpoints answer the same body', async () => {
    const q = 'safe,\nsolo,\n  (cute';
    const explained = await explain({ q });
    const searched = await h.api(`/search/images${qs({ q })}`);
    expect(searched.status).toBe(400);
    expect(searched.body).toEqual(explained.body);
    expect(explained.body.position).toEqual({ offset: 14, line: 3, column: 3 });
  });

  it('too many terms: at the first term over the limit', async () => {
    const q = Array.from({ length: 1025 }, (_, i) => `t${i}`).join(',');
    const many = await explain({ q });
    expect(many.body.error).toMatch(/too many terms/);
    expect(many.body.position.offset).toBe(q.indexOf('t1024'));
  });
});

describe('explain on an image', () => {
  const q = 'safe, (solo || rainbow dash), -score.gt:50';

  it('marks every clause matched or not (image A: all of it)', async () => {
    const res = await explain({ q, image_id: imageA });
    expect(res.status).toBe(200);
    expect(res.body.query).toBeTypeOf('object');
    const c = res.body.image.clauses;
    expect(res.body.image).toMatchObject({ id: imageA, matched: true });
    expect(c).toMatchObject({ kind: 'and', matched: true, start: 0, end: q.length });
    expect(c.children.map((x: { text: string; matched: boolean }) => [x.text, x.matched])).toEqual([
      ['safe', true],
      ['(solo || rainbow dash)', true],
      ['-score.gt:50', true],
    ]);
    expect(c.children[1].children.map((x: { text: string; matched: boolean }) => [x.text, x.matched])).toEqual([
      ['solo', true],
      ['rainbow dash', false],
    ]);
    expect(c.children[2].children[0]).toMatchObject({ kind: 'term', text: 'score.gt:50', matched: false });
  });

  it('image B fails only the negation, so the whole query', async () => {
    const res = await explain({ q, image_id: imageB });
    const c = res.body.image.clauses;
    expect(res.body.image.matched).toBe(false);
    expect(c.children.map((x: { matched: boolean }) => x.matched)).toEqual([true, true, false]);
    expect(c.children[1].children.map((x: { matched: boolean }) => x.matched)).toEqual([false, true]);
  });

  it('agrees with the engine: each clause finds the image exactly when it is marked matched', async () => {
    for (const id of [imageA, imageB]) {
      const res = await explain({ q, image_id: id });
      const walk = async (node: { text: string; matched: boolean; children: unknown[] }): Promise<void> => {
        const found = await h.ok(`/search/images${qs({ q: `id:${id} && (${node.text})` })}`);
        expect(found.total === 1, node.text).toBe(node.matched);
        for (const child of node.children) await walk(child as typeof node);
      };
      await walk(res.body.image.clauses);
    }
  });

  it('unknown image 404, other indexes 400, empty query no clauses', async () => {
    expect((await explain({ q, image_id: 999_999 })).status).toBe(404);
    expect((await h.api(`/search/explain${qs({ index: 'tags', q: 'safe', image_id: imageA })}`)).status).toBe(400);
    expect((await explain({ q: '', image_id: imageA })).body.image).toEqual({ id: imageA, matched: false, clauses: null });
  });

  it('a merged or deleted image is not found, but for staff moderators: its clauses would tell its tags', async () => {
    const deleted = await insertImage(h.db, { tags: [t.safe!, t.sole!], values: { hiddenFromUsers: true, deletionReason: 'Rule #3' } });
    const moderator = await insertUser(h.db, { role: 'moderator' });
    const key = await insertKey(h.db, moderator.id);
    try {
      expect(await explain({ q: 'sole', image_id: deleted.id })).toMatchObject({ status: 404, body: { error: 'Not found' } });
      const filterExplain = `/filters/explain${qs({ image_id: deleted.id, hidden_tags: 'sole' })}`;
      expect(await h.api(filterExplain)).toMatchObject({ status: 404, body: { error: 'Not found' } });
      expect((await explain({ q: 'sole', image_id: deleted.id, key })).body.image).toMatchObject({ id: deleted.id, matched: true });
      expect((await h.api(`${filterExplain}&key=${key}`)).body).toMatchObject({ image_id: deleted.id, hidden: true });
    } finally {
      await h.db.delete(s.images).where(eq(s.images.id, deleted.id));
    }
  });
});

describe('filter explain', () => {
  const complex = 'score.gt:50\nrainbow dash, cute';

  it('says which tags and which clauses hide or spoiler an image, inline or saved', async () => {
    const inline = qs({ image_id: imageA, hidden_tags: 'solo', hidden_complex: complex, spoilered_tags: 'ts' });
    const a = await h.api(`/filters/explain${inline}`);
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ filter: { id: null }, image_id: imageA, hidden: true, spoilered: true });
    expect(a.body.hidden_by.tag_ids).toEqual([t.solo!.id]);
    expect(a.body.spoilered_by.tag_ids).toEqual([t['twilight sparkle']!.id]);
    const lines = a.body.hidden_by.complex.children;
    expect(lines.map((l: { text: string; start: number; matched: boolean }) => [l.text, l.start, l.matched])).toEqual([
      ['score.gt:50', 0, false],
      ['rainbow dash, cute', 12, false],
    ]);

    const saved = await insertFilter(h.db, {
      name: 'explained',
      public: true,
      hiddenTagIds: [t.solo!.id],
      hiddenComplexStr: complex,
      spoileredTagIds: [t['twilight sparkle']!.id],
    });
    const b = await h.api(`/filters/${saved.id}/explain${qs({ image_id: imageB })}`);
    expect(b.status).toBe(200);
    expect(b.body).toMatchObject({ filter: { id: saved.id }, hidden: true, spoilered: true, hidden_by: { tag_ids: [], matched: true } });
    expect(b.body.hidden_by.complex.children.map((l: { matched: boolean }) => l.matched)).toEqual([true, true]);
    expect(b.body.spoilered_by).toEqual({ tag_ids: [], complex: null, matched: false });
  });

  it('a broken expression is 400 at its place in the written text, naming the parameter', async () => {
    const res = await h.api(`/filters/explain${qs({ image_id: imageA, spoilered_complex: 'safe\n(solo' })}`);
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)[0]).toBe('error');
    expect(res.body).toMatchObject({ error: 'Imbalanced parentheses.', parameter: 'spoilered_complex', position: { line: 2 } });
  });

  it('one position rule and one message table: a broken line is reported as the same text searched', async () => {
    const broken = ['(solo', 'safe, (solo || cute', '!', 'safe, -', 'safe)', 'a^2^3', 'score.gte:x', 'created_at:2015-13', '(a) b', '  solo,'];
    for (const text of broken) {
      const searched = (await explain({ q: text })).body;
      expect(searched.position, text).toBeDefined();
      // The same text as the second line of a filter: the same message, the same column, one line down.
      const written = `safe\n${text}`;
      const res = await h.api(`/filters/test${qs({ hidden_complex: written })}`);
      expect(res.status, text).toBe(400);
      expect(res.body.error, text).toBe(searched.error);
      expect(res.body.position, text).toEqual({ offset: 5 + searched.position.offset, line: 2, column: searched.position.column });
      expect(res.body.parameter).toBe('hidden_complex');
    }
    // A date error names no empty rest; a missing image id names its parameter.
    expect((await explain({ q: 'created_at:2015-13' })).body.error).toBe('invalid date format in input, parsed as 2015, 13');
    const missing = await h.api(`/filters/explain${qs({ hidden_tags: 'solo' })}`);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('image_id is required');
  });

  it('unknown tags, filters and images', async () => {
    expect((await h.api(`/filters/explain${qs({ image_id: imageA, hidden_tags: 'nope' })}`)).body.error).toMatch(/unknown tag in hidden_tags: nope/);
    expect((await h.api(`/filters/explain${qs({ image_id: imageA, hidden_tag_ids: '1,x' })}`)).status).toBe(400);
    expect((await h.api(`/filters/999999/explain${qs({ image_id: imageA })}`)).status).toBe(404);
    const own = await insertFilter(h.db, { name: 'private', public: false });
    expect((await h.api(`/filters/${own.id}/explain${qs({ image_id: imageA })}`)).status).toBe(404);
    expect((await h.api(`/filters/explain${qs({ image_id: 999_999 })}`)).status).toBe(404);
  });
});

describe('filter test bench', () => {
  const spec = {
    hidden_tags: 'rainbow dash',
    hidden_complex: 'solo, score.gte:100\ncute, -twilight sparkle',
    spoilered_tags: 'solo',
    spoilered_complex: 'twilight sparkle, cute',
  };

  it('agrees with the search engine: hidden, spoilered, per tag and per clause', async () => {
    const bench = await h.ok(`/filters/test${qs(spec)}`);
    const saved = await insertFilter(h.db, {
      name: 'bench',
      public: true,
      hiddenTagIds: [t['rainbow dash']!.id],
      hiddenComplexStr: spec.hidden_complex,
      spoileredTagIds: [t.solo!.id],
      spoileredComplexStr: spec.spoilered_complex,
    });
    const total = async (q: string, filterId?: number) => (await h.ok(`/search/images${qs({ q, filter_id: filterId, per_page: 1 })}`)).total as number;
    const all = await total('*');
    expect(bench.sample).toEqual({ q: null, size: all, evaluated: all, complete: true });
    expect(bench.hidden).toBe(all - (await total('*', saved.id)));
    expect(bench.spoilered).toBe(await total('solo || (twilight sparkle, cute)', saved.id));
    expect(bench.hidden_by.images).toBe(await total('rainbow dash || (solo, score.gte:100) || (cute, -twilight sparkle)'));
    expect(bench.hidden_by.tags).toEqual([expect.objectContaining({ id: t['rainbow dash']!.id, name: 'rainbow dash', images: await total('rainbow dash') })]);
    for (const line of bench.hidden_by.complex.children) {
      expect(line.images, line.text).toBe(await total(line.text));
      expect(line.examples.length).toBe(Math.min(5, line.images));
      for (const id of line.examples) expect(await total(`id:${id} && (${line.text})`)).toBe(1);
    }
    expect(bench.hidden_by.complex.children.map((l: { text: string }) => l.text)).toEqual(['solo, score.gte:100', 'cute, -twilight sparkle']);
    expect(bench.spoilered_by.complex.images).toBe(await total('twilight sparkle, cute'));
  });

  it('neither counts nor names an image deleted since the engine last heard of it', async () => {
    const doomed = await insertImage(h.db, { tags: [t.safe!, t.sole!] });
    await h.reindex();
    const bench = () => h.ok(`/filters/test${qs({ q: 'sole', hidden_tags: 'sole' })}`);
    expect((await bench()).hidden_by.tags).toEqual([expect.objectContaining({ name: 'sole', images: 1, examples: [doomed.id] })]);
    await h.db.update(s.images).set({ hiddenFromUsers: true, deletionReason: 'Rule #3' }).where(eq(s.images.id, doomed.id));
    try {
      const after = await bench();
      expect(after.hidden).toBe(0);
      expect(JSON.stringify(after.hidden_by)).not.toContain(String(doomed.id));
    } finally {
      await h.db.delete(s.images).where(eq(s.images.id, doomed.id));
      await h.reindex();
    }
  });

  it('runs a saved filter by id, a sample chosen by q, and keeps its bounds', async () => {
    const saved = await insertFilter(h.db, { name: 'by id', public: true, hiddenTagIds: [t.cute!.id] });
    const bench = await h.ok(`/filters/test${qs({ filter_id: saved.id, q: 'solo', sample: 10 })}`);
    expect(bench.filter.id).toBe(saved.id);
    expect(bench.sample).toMatchObject({ q: 'solo', size: 10, complete: true });
    expect(bench.hidden_by.tags[0].images).toBe(bench.hidden);
    expect((await h.api(`/filters/test${qs({ sample: 0 })}`)).status).toBe(400);
    expect((await h.api(`/filters/test${qs({ sample: 5001 })}`)).status).toBe(400);
    // names that cannot be stored are cleaned, as tagging cleans them, not sent to the database as they are
    const odd = await h.api('/filters/test?hidden_tags=%00&spoilered_tags=so%01lo');
    expect(odd, JSON.stringify(odd.body)).toMatchObject({ status: 200 });
    expect((await h.api(`/filters/test${qs({ q: 'safe,', hidden_tags: 'cute' })}`)).body.position.offset).toBe(5);
    expect((await h.api(`/filters/test${qs({ hidden_complex: 'cute\nsafe, score.gt:abc' })}`)).body).toMatchObject({ parameter: 'hidden_complex', position: { offset: 20, line: 2, column: 16 } });
  });
});

describe('images under a filter being written', () => {
  it('leaves out what the inline filter hides, spoilers what it spoilers, pages and sorts as search does', async () => {
    const nothing = (await insertFilter(h.db, { name: 'Nothing hidden (images)', public: true })).id;
    const search = async (q: string, extra: Record<string, string | number> = {}) => h.ok(`/search/images${qs({ q, filter_id: nothing, per_page: 50, ...extra })}`);
    const inline = { hidden_tags: 'cute', hidden_complex: 'score.gte:100', spoilered_tags: 'solo', spoilered_complex: '' };
    const under = await h.ok(`/filters/images${qs({ q: 'safe', per_page: 50, ...inline })}`);
    const expected = await search('safe, -cute, -score.gte:100');
    expect(under.total).toBe(expected.total);
    expect(under.images.map((i: { id: number }) => i.id)).toEqual(expected.images.map((i: { id: number }) => i.id));
    const soloIds = new Set((await search('safe, -cute, -score.gte:100, solo')).images.map((i: { id: number }) => i.id));
    for (const image of under.images) expect(image.spoilered, `image ${image.id}`).toBe(soloIds.has(image.id));
    // An empty inline filter hides nothing (it is not the current filter).
    const empty = await h.ok(`/filters/images${qs({ q: 'safe', hidden_tags: '' })}`);
    expect(empty.total).toBe((await search('safe')).total);
    // Pages and sort as /search/images.
    const sorted = await h.ok(`/filters/images${qs({ q: 'safe', hidden_tags: '', sf: 'score', sd: 'asc', page: 2, per_page: 5 })}`);
    expect(sorted.images.map((i: { id: number }) => i.id)).toEqual((await search('safe', { sf: 'score', sd: 'asc', page: 2, per_page: 5 })).images.map((i: { id: number }) => i.id));
    // A broken expression is 400 naming it.
    const broken = await h.api(`/filters/images${qs({ q: 'safe', hidden_complex: 'solo,' })}`);
    expect(broken.status).toBe(400);
    expect(broken.body.parameter).toBe('hidden_complex');
  });
});

describe("a key user's own filters, written", () => {
  it('creates, changes and lists them; checks them as a search would; others cannot see or change them', async () => {
    const alice = await insertUser(h.db, {});
    const bob = await insertUser(h.db, {});
    const [aliceKey, bobKey] = [await insertKey(h.db, alice.id), await insertKey(h.db, bob.id)];
    const post = (path: string, key: string | null, body: unknown, type = 'application/json') =>
      h.api(`${path}${key ? `?key=${key}` : ''}`, { method: 'POST', headers: { 'content-type': type }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    const made = await post('/filters', aliceKey, { filter: { name: 'mine', hidden_tag_ids: [t.solo!.id, t.ts!.id], hidden_complex: 'cute\nscore.gte:100' } });
    expect(made.status).toBe(200);
    expect(made.body.filter).toMatchObject({ name: 'mine', public: false, system: false, user_id: alice.id, hidden_complex: 'cute\nscore.gte:100' });
    // The alias is stored as its target.
    expect([...made.body.filter.hidden_tag_ids].sort()).toEqual([t.solo!.id, t['twilight sparkle']!.id].sort());
    const id = made.body.filter.id as number;
    // Private: Alice sees it, anonymous callers and Bob do not.
    expect((await h.api(`/filters/${id}?key=${aliceKey}`)).status).toBe(200);
    expect((await h.api(`/filters/${id}`)).status).toBe(404);
    expect((await h.api(`/filters/${id}?key=${bobKey}`)).status).toBe(404);
    expect((await h.api(`/filters/user?key=${aliceKey}`)).body.filters.map((f: { id: number }) => f.id)).toContain(id);
    // Changed: only the fields given.
    const changed = await post(`/filters/${id}`, aliceKey, { filter: { spoilered_complex: 'solo', public: true } });
    expect(changed.status).toBe(200);
    expect(changed.body.filter).toMatchObject({ name: 'mine', public: true, spoilered_complex: 'solo', hidden_complex: 'cute\nscore.gte:100' });
    expect((await h.api(`/filters/${id}`)).body.filter.spoilered_complex).toBe('solo');
    // The bench runs it by id, as saved.
    expect((await h.api(`/filters/test${qs({ filter_id: id, key: aliceKey })}`)).status).toBe(200);
    // Refused: no key, someone else's filter, bad fields, bad bodies.
    expect((await post('/filters', null, { filter: { name: 'x' } })).status).toBe(403);
    expect((await post(`/filters/${id}`, bobKey, { filter: { name: 'taken' } })).status).toBe(404);
    const refused: [unknown, RegExp][] = [
      [{ filter: {} }, /^name: required$/],
      [{ filter: { name: '  ' } }, /^name: /],
      [{ filter: { name: 'x', hidden_complex: 'solo\n!' } }, /^hidden_complex: Expected a term\.$/],
      [{ filter: { name: 'x', hidden_tag_ids: [999_999] } }, /^hidden_tag_ids: no tag has id 999999$/],
      [{ filter: { name: 'x', public: 'yes' } }, /^filter\.public: /],
      [{ filter: { name: 'x', extra: 1 } }, /^filter: /],
      ['{not json', /^Malformed JSON body$/],
    ];
    for (const [body, message] of refused) {
      const res = await post('/filters', aliceKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toMatch(message);
    }
    expect((await post('/filters', aliceKey, 'name=x', 'application/x-www-form-urlencoded')).status).toBe(415);
    expect((await post('/filters', aliceKey, { filter: { name: 'x', description: 'y'.repeat(70_000) } })).status).toBe(413);
  });
});

describe('autocomplete', () => {
  const rich = async (term: string, extra: Record<string, string | number> = {}) => (await h.ok(`/autocomplete/tags${qs({ term, format: 'rich', ...extra })}`)) as any;
  const names = async (term: string) => (await rich(term)).suggestions.filter((s: { kind: string }) => s.kind !== 'field').map((s: { value: string }) => s.value);

  it("answers Philomena's {label, value} list, prefix matches by image count", async () => {
    const body = await h.ok(`/autocomplete/tags${qs({ term: 'tw' })}`);
    expect(body).toEqual([
      { label: 'twilight sparkle (500)', value: 'twilight sparkle' },
      { label: 'twilight velvet (40)', value: 'twilight velvet' },
    ]);
    expect(await names('s')).toEqual(['safe', 'solo', 'sole', 'twilight sparkle']);
  });

  it('forgives one or two typos, transpositions included', async () => {
    const typo = (await rich('twilgiht')).suggestions[0];
    expect(typo).toMatchObject({ value: 'twilight sparkle', match: 'typo', distance: 1 });
    expect((await rich('rianbow dsah')).suggestions[0]).toMatchObject({ value: 'rainbow dash', match: 'typo', distance: 2 });
    expect((await rich('slo')).suggestions.map((s: { value: string }) => s.value)).toEqual(['solo', 'sole']);
    expect(await names('xyzzy')).toEqual([]);
  });

  it('forgives a typo in the first letter: changed, missing, or swapped with the second', async () => {
    expect(await names('xute')).toContain('cute');
    expect(await names('wilight spa')).toContain('twilight sparkle');
    expect(await names('arinbow')).toContain('rainbow dash');
    expect(await names('olo')).toContain('solo');
  });

  it('did you mean: unknown tags and misspelt fields in the explain answer, with their place', async () => {
    const q = 'safe, twiligth sparkle || scroe.gte:5';
    const body = (await explain({ q })).body;
    expect(body.did_you_mean).toEqual([
      { term: 'twiligth sparkle', kind: 'tag', start: 6, end: 22, suggestions: expect.arrayContaining(['twilight sparkle']) },
      { term: 'scroe', kind: 'field', start: 26, end: 31, suggestions: expect.arrayContaining(['score']) },
    ]);
    expect(body.did_you_mean[0].suggestions[0]).toBe('twilight sparkle');
    expect(q.slice(26, 31)).toBe('scroe');
    expect((await explain({ q: 'safe, -solo, artist:jane, score.gte:5, twi*' })).body.did_you_mean).toEqual([]);
  });

  it('matches words in any order, inner words and namespaces', async () => {
    expect((await rich('dash rain')).suggestions[0]).toMatchObject({ value: 'rainbow dash', match: 'words' });
    expect(await names('sparkle')).toEqual(['twilight sparkle']);
    expect(await names('artist:')).toEqual(['artist:jane', 'artist:john doe']);
    expect((await rich('artist:jhon')).suggestions[0]).toMatchObject({ value: 'artist:john doe', match: 'typo', distance: 1 });
    expect(await names('doe')).toEqual(['artist:john doe']);
  });

  it('resolves aliases, adds fields with their operators, completes the term at the caret', async () => {
    expect((await rich('ts')).suggestions[0]).toMatchObject({ kind: 'alias', name: 'ts', value: 'twilight sparkle', alias_of: 'twilight sparkle', category: 'character', images: 500 });
    const fields = (await rich('score')).suggestions.filter((s: { kind: string }) => s.kind === 'field').map((s: { value: string }) => s.value);
    expect(fields).toEqual(['score:', 'score.gt:', 'score.lt:', 'score.gte:', 'score.lte:']);
    const neg = await rich('safe, -twi');
    expect(neg).toMatchObject({ term: 'twi', replace: { start: 7, end: 10 } });
    expect(neg.suggestions[0].value).toBe('twilight sparkle');
    expect((await rich('(solo || !rai')).replace).toEqual({ start: 10, end: 13 });
    expect(await rich('safe, NOT cu, solo', { cursor: 12 })).toMatchObject({ term: 'cu', replace: { start: 10, end: 12 } });
  });

  it('follows the outbox: new tags and new counts show without a restart', async () => {
    await h.ok(`/autocomplete/tags${qs({ term: 'pin' })}`);
    const pinkie = await insertTag(h.db, 'pinkie pie', { imagesCount: 5 });
    await untilSearchShows(async () => (await names('pin')).includes('pinkie pie'));
    await insertTag(h.db, 'pinecone', { imagesCount: 9 });
    await untilSearchShows(async () => (await names('pin'))[0] === 'pinecone');
    await h.db.update(s.tags).set({ imagesCount: 50 }).where(eq(s.tags.id, pinkie.id));
    await untilSearchShows(async () => (await names('pin'))[0] === 'pinkie pie');
  });

  it('refuses bad parameters with 400', async () => {
    expect((await h.api('/autocomplete/tags')).status).toBe(400);
    expect((await h.api(`/autocomplete/tags${qs({ term: 'a', limit: 99 })}`)).status).toBe(400);
    expect((await h.api(`/autocomplete/tags${qs({ term: 'a', format: 'xml' })}`)).status).toBe(400);
  });
});
