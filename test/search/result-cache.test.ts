/**
 * The embedded engine's answers kept across writes (src/search/embedded/result-cache.ts) and its
 * remembered filter sets patched by writes (query/filter-set-cache.ts): after any sequence of
 * writes and deletes, every answer equals the one a freshly built index gives for the same
 * documents, which has no cache, no remembered set and no tombstone.
 */
import { describe, expect, it } from 'vitest';
import type { Query, SortClause } from '../../grammar/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { PhysicalIndex } from '../../src/search/embedded/index/physical-index.js';
import { answerKey, ResultCache } from '../../src/search/embedded/result-cache.js';
import { CacheRegistry } from '../../src/lib/cache-registry.js';
import { searchIndex } from '../../src/search/embedded/search.js';
import type { IndexDocument, SearchRequest } from '../../src/search/engine.js';
import type { IndexMapping } from '../../src/search/mapping.js';
import { mulberry32 } from '../../src/lib/random.js';

const mapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'long' },
    tags: { type: 'keyword' },
    tag_ids: { type: 'long' },
    score: { type: 'integer' },
    created_at: { type: 'date' },
    approved: { type: 'boolean' },
    hidden_from_users: { type: 'boolean' },
    galleries: { type: 'nested', properties: { id: { type: 'long' }, position: { type: 'integer' } } },
    // as a comment holds its image's: fields inside an object, read and changed by dotted path
    image: { type: 'object', properties: { tag_ids: { type: 'keyword' }, approved: { type: 'boolean' } } },
  },
};

const TAGS = ['safe', 'solo', 'cat', 'dog', 'abc', 'xabcx', 'blue', 'red'];
const DAY = 86_400_000;
const NOW = Date.now();

function pickTags(rnd: () => number): { tags: string[]; tag_ids: number[] } {
  const tagIds = [...new Set(Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => Math.floor(rnd() * TAGS.length)))];
  // now and then a tag never seen: a new term makes the dictionary's kept pattern unions
  // stale, so patterns are tested on the candidates' own terms
  const fresh = rnd() < 0.1 ? [`${rnd() < 0.5 ? 'b' : 'xabc'}${Math.floor(rnd() * 1e6)}`] : [];
  return { tags: [...tagIds.map((t) => TAGS[t]!), ...fresh], tag_ids: tagIds };
}

function makeDoc(id: number, rnd: () => number): IndexDocument {
  return {
    id,
    ...pickTags(rnd),
    score: Math.floor(rnd() * 20) - 5,
    // around now, so that relative dates move documents in and out as they change
    created_at: new Date(NOW - Math.floor(rnd() * 4 * DAY)).toISOString(),
    approved: rnd() < 0.9,
    hidden_from_users: rnd() < 0.1,
    galleries: rnd() < 0.3 ? [{ id: 1 + Math.floor(rnd() * 2), position: Math.floor(rnd() * 10) }] : [],
    image: pickImage(rnd),
  };
}

/** The object field's values: a few tag ids, and a flag; now and then none (changed whole). */
function pickImage(rnd: () => number): { tag_ids: number[]; approved: boolean } | undefined {
  if (rnd() < 0.15) return undefined;
  return { tag_ids: [...new Set(Array.from({ length: Math.floor(rnd() * 3) }, () => Math.floor(rnd() * 6)))], approved: rnd() < 0.8 };
}

const QUERIES: Query[] = [
  { match_all: {} },
  { term: { tags: 'safe' } },
  { terms: { tag_ids: [2, 3] } },
  { wildcard: { tags: '*abc*' } },
  { prefix: { tags: 'b' } },
  { range: { score: { gte: 5 } } },
  { range: { created_at: { gte: 'now-2d' } } },
  { range: { created_at: { lt: new Date(NOW - DAY).toISOString() } } },
  { bool: { should: [{ term: { tags: 'cat' } }, { term: { tags: 'dog' } }], must_not: [{ range: { score: { lt: 0 } } }] } },
  { nested: { path: 'galleries', query: { term: { 'galleries.id': 1 } } } },
  { terms: { 'image.tag_ids': [1, 2] } },
  { bool: { must: { term: { 'image.tag_ids': 3 } }, must_not: [{ term: { 'image.approved': false } }] } },
  { bool: { must: { match_all: {} }, must_not: [{ terms: { 'image.tag_ids': [4, 5] } }, { term: { 'image.approved': false } }] } },
] as Query[];

const SORTS: SortClause[][] = [
  [{ id: 'desc' }],
  [{ score: 'desc' }, { id: 'desc' }],
  // ties go by document number, which an edit changes
  [{ score: 'desc' }],
  [{ created_at: 'asc' }, { id: 'asc' }],
  [{ tags: 'asc' }, { id: 'asc' }],
  [{ _score: 'desc' }, { id: 'asc' }],
  [{ 'galleries.position': { order: 'asc', nested: { path: 'galleries', filter: { term: { 'galleries.id': 1 } } } } }, { id: 'desc' }],
] as SortClause[][];

/** What a listing sends: the query, then what the filter hides (kept as remembered sets). */
function listing(query: Query, hidden: number[]): Query {
  const mustNot: Query[] = [{ term: { approved: false } }, { term: { hidden_from_users: true } }] as Query[];
  if (hidden.length > 0) mustNot.push({ bool: { should: [{ terms: { tag_ids: hidden } }] } } as Query);
  return { bool: { must: query, must_not: mustNot } } as Query;
}

/** A fixed pool of requests, asked again and again, as a board's traffic does. */
function requestPool(rnd: () => number, n: number): SearchRequest[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const pool: SearchRequest[] = [];
  for (let i = 0; i < n; i++) {
    let query = listing(pick(QUERIES), rnd() < 0.5 ? [] : [Math.floor(rnd() * TAGS.length), Math.floor(rnd() * TAGS.length)]);
    let sort = pick(SORTS);
    if (rnd() < 0.15) {
      query = { function_score: { query, functions: [{ random_score: { seed: Math.floor(rnd() * 3), field: 'id' } }], boost_mode: 'replace' } } as Query;
      sort = [{ _score: 'desc' }, { id: 'desc' }] as SortClause[];
    }
    pool.push({ query, sort, from: pick([0, 0, 3, 10]), size: pick([1, 5, 10, 50]) });
  }
  return pool;
}

/** An index built now from `docs` alone. */
function freshIndex(docs: Map<number, IndexDocument>): PhysicalIndex {
  const index = new PhysicalIndex('fresh', mapping);
  index.write([...docs.values()]);
  return index;
}

describe('search answers kept across writes', () => {
  it('never serve a stale answer: random writes, deletes and searches against a fresh index', async () => {
    // seed 4: no time for checks, so every write drops what it cannot check
    for (const [seed, checkBudgetMs] of [[1, 1_000], [2, 1_000], [3, 1_000], [4, 0]] as const) {
      const rnd = mulberry32(seed);
      const engine = new EmbeddedEngine({ resultCache: { maxBatch: 12, maxEntries: 40, checkBudgetMs } });
      await engine.ensureIndex({ name: 'images', mapping });
      // in the order the engine numbers them: a rewritten document goes last (ties of a sort
      // without `id` go by that order)
      const docs = new Map<number, IndexDocument>();
      const put = (d: IndexDocument) => {
        docs.delete(d.id);
        docs.set(d.id, d);
      };
      const initial = Array.from({ length: 150 }, (_, i) => makeDoc(i + 1, rnd));
      for (const d of initial) put(d);
      await engine.write('images', initial);
      const pool = requestPool(rnd, 60);
      let nextId = 151;
      let compared = 0;
      for (let step = 0; step < 120; step++) {
        const r = rnd();
        if (r < 0.15) {
          const ids = [...docs.keys()].filter(() => rnd() < 0.03);
          await engine.remove('images', ids);
          for (const id of ids) docs.delete(id);
        } else if (r < 0.45) {
          // a tag edit of one document: its sort keys stay, so answers it is in may stay too
          const id = [...docs.keys()][Math.floor(rnd() * docs.size)]!;
          const edited = { ...docs.get(id)!, ...pickTags(rnd) };
          await engine.write('images', [edited]);
          put(edited);
        } else if (r < 0.5) {
          // several documents changed in place together, in their object field only (the
          // comments of an image whose tags changed): answers none of the changes concern stay
          const ids = [...new Set(Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => [...docs.keys()][Math.floor(rnd() * docs.size)]!))];
          const edited = ids.map((id) => ({ ...docs.get(id)!, image: pickImage(rnd) }));
          await engine.write('images', edited);
          for (const d of edited) put(d);
        } else if (r < 0.6) {
          // a vote: one document's score moves it within the answers it is in
          const id = [...docs.keys()][Math.floor(rnd() * docs.size)]!;
          const voted = { ...docs.get(id)!, score: Math.floor(rnd() * 20) - 5 };
          await engine.write('images', [voted]);
          put(voted);
        } else if (r < 0.65) {
          // a batch past maxBatch: the index's answers are cleared
          const batch = Array.from({ length: 20 }, () => makeDoc(rnd() < 0.5 ? nextId++ : 1 + Math.floor(rnd() * nextId), rnd));
          await engine.write('images', batch);
          for (const d of batch) put(d);
        } else {
          // a few new or changed documents: tags, scores, dates, galleries move them in and out
          const batch = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => makeDoc(rnd() < 0.3 ? nextId++ : 1 + Math.floor(rnd() * nextId), rnd));
          await engine.write('images', batch);
          for (const d of batch) put(d);
        }
        const fresh = freshIndex(docs);
        for (let k = 0; k < 12; k++) {
          const request = pool[Math.floor(rnd() * pool.length)]!;
          const got = await engine.search('images', request);
          expect(got, `seed ${seed} step ${step}: ${JSON.stringify(request)}`).toEqual(searchIndex(fresh, request));
          compared++;
        }
      }
      expect(compared).toBe(120 * 12);
    }
  });

  it('serves a kept answer: the same request twice gives the same ids without searching again', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const rnd = mulberry32(9);
    await engine.write('images', Array.from({ length: 50 }, (_, i) => makeDoc(i + 1, rnd)));
    const request: SearchRequest = { query: { term: { tags: 'safe' } } as Query, sort: [{ id: 'desc' }] as SortClause[], size: 5 };
    const first = await engine.search('images', request);
    first.ids.push(-1); // a caller changing its copy changes nothing kept
    expect(await engine.search('images', request)).toEqual({ ids: first.ids.slice(0, -1), total: first.total });
  });

  it('a tag change moves a document into and out of a kept answer', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const base = (id: number, tags: string[]) => ({ id, tags, tag_ids: [], score: 0, approved: true, hidden_from_users: false });
    await engine.write('images', [base(1, ['cat']), base(2, ['dog']), base(3, ['cat'])]);
    const request: SearchRequest = { query: listing({ term: { tags: 'cat' } } as Query, []), sort: [{ id: 'asc' }] as SortClause[] };
    expect(await engine.search('images', request)).toEqual({ ids: [1, 3], total: 2 });
    await engine.write('images', [base(2, ['cat'])]);
    expect(await engine.search('images', request)).toEqual({ ids: [1, 2, 3], total: 3 });
    await engine.write('images', [base(1, ['dog'])]);
    expect(await engine.search('images', request)).toEqual({ ids: [2, 3], total: 2 });
    await engine.remove('images', [3]);
    expect(await engine.search('images', request)).toEqual({ ids: [2], total: 1 });
    // a change to a document the query does not match keeps the answer, and it stays right
    await engine.write('images', [base(5, ['dog'])]);
    expect(await engine.search('images', request)).toEqual({ ids: [2], total: 1 });
  });

  it('a write whose checks run out of time drops the answers it did not check, and answers stay right', async () => {
    const base = (id: number, tags: string[]) => ({ id, tags, tag_ids: [], score: 0, approved: true, hidden_from_users: false });
    const requests: SearchRequest[] = ['cat', 'dog', 'fox'].map((tag) => ({ query: listing({ term: { tags: tag } } as Query, []), sort: [{ id: 'asc' }] as SortClause[] }));
    const kept = async (checkBudgetMs?: number) => {
      const engine = new EmbeddedEngine({ resultCache: checkBudgetMs === undefined ? {} : { checkBudgetMs } });
      await engine.ensureIndex({ name: 'images', mapping });
      await engine.write('images', [base(1, ['cat']), base(2, ['dog']), base(3, ['fox'])]);
      for (const request of requests) await engine.search('images', request);
      expect(engine.keptAnswers().entries).toBe(3);
      // a document none of the three queries matches
      await engine.write('images', [base(9, ['owl'])]);
      expect(await engine.search('images', requests[0]!)).toEqual({ ids: [1], total: 1 });
      expect(await engine.search('images', requests[1]!)).toEqual({ ids: [2], total: 1 });
      return engine.keptAnswers().dropped;
    };
    // with time to check, nothing is dropped; with none, every answer is, and searched again
    expect(await kept()).toBe(0);
    expect(await kept(0)).toBe(3);
  });

  it('checks the pages of one search with one run of its query a side of the write', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const doc = (id: number, tags: string[]) => ({ id, tags, tag_ids: [], score: id % 3, approved: true, hidden_from_users: false });
    await engine.write('images', Array.from({ length: 30 }, (_, i) => doc(i + 1, ['cat'])));
    // a pattern reads the tags it passes, so a tag edit adding one is checked by running the query
    const pages = [0, 5, 10, 15, 20].map((from): SearchRequest => ({ query: listing({ prefix: { tags: 'ca' } } as Query, []), sort: [{ score: 'desc' }, { id: 'desc' }] as SortClause[], from, size: 5 }));
    const before = await Promise.all(pages.map((page) => engine.search('images', page)));
    expect(engine.keptAnswers()).toMatchObject({ entries: 5, checkRuns: 0 });
    // a tag the pattern does not pass: no page is looked at
    await engine.write('images', [doc(8, ['cat', 'dog'])]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 5, checkRuns: 0, looked: 0 });
    // a tag edit of one document every page matches: its sort keys, the same, found once before and once after
    await engine.write('images', [doc(7, ['cat', 'cab'])]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 5, dropped: 0, checkRuns: 2 });
    for (const [i, page] of pages.entries()) expect(await engine.search('images', page)).toEqual(before[i]);
    // a score change: every page goes (the document moves), still for one run a side
    await engine.write('images', [doc(7, ['cat'])].map((d) => ({ ...d, score: 9 })));
    // (and one more for each page without it, for its last document: the document went before it)
    expect(engine.keptAnswers()).toMatchObject({ entries: 0, dropped: 5, checkRuns: 8 });
    expect((await engine.search('images', pages[0]!)).ids[0]).toBe(7);
  });

  it('checks one search kept in several orders with one run of its query a side: keys on fields need no run', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const doc = (id: number, tags: string[]) => ({ id, tags, tag_ids: [], score: id % 3, created_at: new Date(Date.UTC(2024, 0, id)).toISOString(), approved: true, hidden_from_users: false });
    await engine.write('images', Array.from({ length: 30 }, (_, i) => doc(i + 1, ['cat'])));
    const orders = [[{ id: 'desc' }], [{ score: 'desc' }, { id: 'desc' }], [{ created_at: 'asc' }, { id: 'asc' }], [{ score: 'asc' }, { id: 'asc' }]] as SortClause[][];
    const requests = orders.map((sort): SearchRequest => ({ query: listing({ prefix: { tags: 'ca' } } as Query, []), sort, size: 40 }));
    const before = await Promise.all(requests.map((request) => engine.search('images', request)));
    // a tag the pattern passes, added to a document every answer holds: one run before, one after
    await engine.write('images', [doc(7, ['cat', 'cab'])]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 4, dropped: 0, checkRuns: 2 });
    for (const [i, request] of requests.entries()) expect(await engine.search('images', request)).toEqual(before[i]);
  });

  it('keeps the answers a tag edit changes nothing of without running their queries', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const doc = (id: number, tags: string[]) => ({ id, tags, tag_ids: [], score: id % 3, approved: true, hidden_from_users: false });
    await engine.write('images', Array.from({ length: 20 }, (_, i) => doc(i + 1, i % 2 === 0 ? ['cat'] : ['cat', 'dog'])));
    const byTag = (tag: string, sort: SortClause[]): SearchRequest => ({ query: listing({ term: { tags: tag } } as Query, []), sort, size: 5 });
    const cat = byTag('cat', [{ score: 'desc' }, { id: 'desc' }] as SortClause[]);
    const dog = byTag('dog', [{ id: 'asc' }] as SortClause[]);
    const byScore = { query: listing({ match_all: {} } as Query, []), sort: [{ score: 'desc' }, { id: 'asc' }] as SortClause[], size: 5 };
    // ties by document number: a rewrite moves the document among them, so this one is checked
    const unkeyed = { ...byTag('cat', [{ score: 'desc' }] as SortClause[]), size: 50 };
    for (const request of [cat, dog, byScore, unkeyed]) await engine.search('images', request);
    // `owl` added to image 3 (a cat): no kept query reads `owl` or a field it changed
    await engine.write('images', [doc(3, ['cat', 'owl'])]);
    // the three keyed answers stay without a run; the unkeyed one is run before and after
    expect(engine.keptAnswers()).toMatchObject({ entries: 3, dropped: 1, checkRuns: 1 });
    // `dog` added to image 5: the dog search is concerned (image 5 enters it), the others are not
    await engine.write('images', [doc(5, ['cat', 'dog'])]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 2, dropped: 2 });
    expect(await engine.search('images', dog)).toEqual({ ids: [2, 4, 5, 6, 8], total: 11 });
    // a score change concerns the answers sorted by score, whatever their query
    await engine.write('images', [{ ...doc(7, ['cat']), score: 9 }]);
    expect(await engine.search('images', byScore)).toEqual({ ids: [7, 2, 5, 8, 11], total: 20 });
    expect(await engine.search('images', cat)).toEqual({ ids: [7, 20, 17, 14, 11], total: 20 });
  });

  it('a tag edit looks only at the kept answers it concerns, however many others are kept', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const doc = (id: number, tags: string[]) => ({ id, tags, tag_ids: [], score: id % 3, approved: true, hidden_from_users: false });
    await engine.write('images', Array.from({ length: 50 }, (_, i) => doc(i + 1, ['cat', `t${i}`])));
    // 500 kept answers for tags the edit does not touch, in two orders, pages of each
    const byTag = (tag: string, sort: SortClause[], from: number): SearchRequest => ({ query: listing({ term: { tags: tag } } as Query, []), sort, from, size: 5 });
    const orders = [[{ id: 'desc' }], [{ score: 'desc' }, { id: 'asc' }]] as SortClause[][];
    for (let i = 0; i < 50; i++) for (const sort of orders) for (let from = 0; from < 25; from += 5) await engine.search('images', byTag(`t${i}`, sort, from));
    const dog = byTag('dog', orders[0]!, 0);
    expect(await engine.search('images', dog)).toEqual({ ids: [], total: 0 });
    expect(engine.keptAnswers()).toMatchObject({ entries: 501, looked: 0 });
    // `dog` added to image 7: only the dog search is looked at (before and after the write)
    await engine.write('images', [doc(7, ['cat', 't6', 'dog'])]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 500, dropped: 1, looked: 2 });
    expect(await engine.search('images', dog)).toEqual({ ids: [7], total: 1 });
    expect(await engine.search('images', byTag('t6', orders[1]!, 0))).toEqual({ ids: [7], total: 1 });
  });

  it("the comments of an image whose tags changed, written together, leave the listings that read other tags of it", async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    // comment-like documents: each holds its image's tag ids and flag
    const comment = (id: number, imageTags: number[]) => ({ id, tags: [], score: id, approved: true, hidden_from_users: false, image: { tag_ids: imageTags, approved: true } });
    await engine.write('images', Array.from({ length: 30 }, (_, i) => comment(i + 1, [1, 2])));
    // the listing as a filter hiding tags 4 and 5 sees it, and a search for comments on tag 3
    const hiding: SearchRequest = { query: { bool: { must: { match_all: {} }, must_not: [{ terms: { 'image.tag_ids': [4, 5] } }, { term: { 'image.approved': false } }] } } as Query, sort: [{ score: 'desc' }, { id: 'desc' }] as SortClause[], size: 10 };
    const onTag3: SearchRequest = { query: { term: { 'image.tag_ids': 3 } } as Query, sort: [{ id: 'desc' }] as SortClause[], size: 10 };
    expect((await engine.search('images', hiding)).ids).toEqual([30, 29, 28, 27, 26, 25, 24, 23, 22, 21]);
    expect(await engine.search('images', onTag3)).toEqual({ ids: [], total: 0 });
    // tag 3 added to the image of comments 28–30: the listing is not concerned and is not looked at
    await engine.write('images', [28, 29, 30].map((id) => comment(id, [1, 2, 3])));
    expect(engine.keptAnswers()).toMatchObject({ entries: 1, dropped: 1, looked: 2 });
    expect(await engine.search('images', onTag3)).toEqual({ ids: [30, 29, 28], total: 3 });
    // tag 4 is one the listing hides: it is looked at, and its comments leave it
    await engine.write('images', [29, 30].map((id) => comment(id, [1, 2, 3, 4])));
    expect((await engine.search('images', hiding)).ids).toEqual([28, 27, 26, 25, 24, 23, 22, 21, 20, 19]);
    expect(await engine.search('images', onTag3)).toEqual({ ids: [30, 29, 28], total: 3 });
  });

  it('an answer dropped for room leaves the list of answers by what they read too', () => {
    const index = freshIndex(new Map([[1, makeDoc(1, mulberry32(1))]]));
    const cache = new ResultCache({ maxEntries: 3 }, new CacheRegistry());
    for (let i = 0; i < 10; i++) cache.answer(index, { query: { term: { tags: `t${i}` } } as Query, sort: [{ id: 'desc' }] as SortClause[], size: 5 }, () => ({ ids: [], total: 0 }));
    expect(cache.size).toBe(3);
    // every term of `tags` changed: each answer still listed under a term is concerned (the
    // lists are private, and not seen through the engine: a key listed in vain is skipped)
    // biome-ignore lint/complexity/useLiteralKeys: a private field, reached by its name
    const listed = cache['owners'].get(index)!.byReads.concerned(new Map([['tags', null]]));
    expect(listed.size).toBe(3);
  });

  it('an answer kept for a while (a date resolved against the clock) leaves when its time is up, and no write looks at it after', () => {
    const index = freshIndex(new Map([[1, makeDoc(1, mulberry32(1))]]));
    let now = 0;
    const cache = new ResultCache({ now: () => now }, new CacheRegistry());
    let runs = 0;
    const run = () => {
      runs++;
      return { ids: [1], total: 1 };
    };
    const pinned = (second: number): SearchRequest => ({ query: { range: { created_at: { gte: new Date(second * 1000).toISOString() } } } as Query, size: 5, keepMs: 1000 });
    cache.answer(index, pinned(0), run);
    now = 999;
    cache.answer(index, pinned(0), run);
    expect(runs).toBe(1);
    // asked within its second, it was kept; past it, gone without being asked again
    cache.answer(index, pinned(1), run);
    cache.answer(index, { query: { term: { tags: 'never' } } as Query, sort: [{ id: 'desc' }] as SortClause[], size: 5 }, run);
    expect(cache.size).toBe(3);
    now = 1000;
    cache.answer(index, { query: { term: { tags: 'never' } } as Query, sort: [{ id: 'desc' }] as SortClause[], size: 5 }, run);
    expect(cache.size).toBe(2);
    now = 5000;
    // a write of the date they read looks at none of them: only the answer kept for good is left
    const doc = makeDoc(1, mulberry32(1));
    const older = { ...doc, created_at: new Date(NOW - 9 * DAY).toISOString() };
    const change = cache.changing(index, [1], [older]);
    index.write([older]);
    change.done(true);
    expect(cache.size).toBe(1);
    expect(cache.looked).toBe(0);
    // one held back in the queue by another that expires later is not answered either
    cache.answer(index, { ...pinned(9), keepMs: 10_000 }, run);
    cache.answer(index, pinned(7), run);
    now = 6500;
    runs = 0;
    cache.answer(index, pinned(7), run);
    expect(runs).toBe(1);
  });

  it('a document moving, entering or leaving past a kept page leaves the page and sets its total', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const doc = (id: number, tags: string[], score: number) => ({ id, tags, tag_ids: [], score, approved: true, hidden_from_users: false });
    await engine.write('images', Array.from({ length: 20 }, (_, i) => doc(i + 1, ['cat'], 20 - i)));
    const request = (from: number): SearchRequest => ({ query: listing({ term: { tags: 'cat' } } as Query, []), sort: [{ score: 'desc' }, { id: 'asc' }] as SortClause[], from, size: 3 });
    const [first, second] = [request(0), request(3)];
    expect(await engine.search('images', first)).toEqual({ ids: [1, 2, 3], total: 20 });
    expect(await engine.search('images', second)).toEqual({ ids: [4, 5, 6], total: 20 });
    // image 15 (score 6) falls to score 1: past both pages before and after
    await engine.write('images', [doc(15, ['cat'], 1)]);
    // image 21 enters with score 2, image 12 leaves: past both pages too
    await engine.write('images', [doc(21, ['cat'], 2)]);
    await engine.write('images', [doc(12, ['dog'], 9)]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 2, dropped: 0, patched: 6 });
    expect(await engine.search('images', first)).toEqual({ ids: [1, 2, 3], total: 20 });
    expect(await engine.search('images', second)).toEqual({ ids: [4, 5, 6], total: 20 });
    // image 22 enters between the pages (after image 3, its tie by id): the second page shifts, the first stays
    await engine.write('images', [doc(22, ['cat'], 18)]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 1, dropped: 1 });
    expect(await engine.search('images', first)).toEqual({ ids: [1, 2, 3], total: 21 });
    expect(await engine.search('images', second)).toEqual({ ids: [22, 4, 5], total: 21 });
  });

  it('a vote on a document past the page of a search that does not read votes costs no run of its query', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const doc = (id: number, tags: string[], score: number) => ({ id, tags, tag_ids: [], score, approved: true, hidden_from_users: false });
    await engine.write('images', Array.from({ length: 20 }, (_, i) => doc(i + 1, i < 15 ? ['cat'] : ['dog'], 20 - i)));
    const byScore = (from: number): SearchRequest => ({ query: listing({ term: { tags: 'cat' } } as Query, []), sort: [{ score: 'desc' }, { id: 'asc' }] as SortClause[], from, size: 3 });
    const pages = [byScore(0), byScore(3)];
    const before = await Promise.all(pages.map((page) => engine.search('images', page)));
    // image 12 (a cat, score 9) falls to 2: past both pages before and after; only each page's
    // last document is run, once
    await engine.write('images', [doc(12, ['cat'], 2)]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 2, dropped: 0, checkRuns: 2 });
    await engine.write('images', [doc(12, ['cat'], 3)]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 2, dropped: 0, checkRuns: 2 });
    // image 18, a dog, rises above every cat: its match, not the same before and after, is run once
    await engine.write('images', [doc(18, ['dog'], 50)]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 2, dropped: 0, checkRuns: 3 });
    for (const [i, page] of pages.entries()) expect(await engine.search('images', page)).toEqual(before[i]);
    // image 5, a cat, rises to the top: both pages change
    await engine.write('images', [doc(5, ['cat'], 60)]);
    expect(engine.keptAnswers()).toMatchObject({ entries: 0, dropped: 2 });
    expect((await engine.search('images', pages[0]!)).ids).toEqual([5, 1, 2]);
    expect((await engine.search('images', pages[1]!)).ids).toEqual([3, 4, 6]);
  });

  it('a batch that fails part way leaves no kept answer behind', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    await engine.write('images', [{ id: 1, tags: ['cat'], score: 1 }]);
    const request: SearchRequest = { query: { term: { tags: 'cat' } } as Query, sort: [{ id: 'asc' }] as SortClause[] };
    expect(await engine.search('images', request)).toEqual({ ids: [1], total: 1 });
    // the first document is written, the second refused
    await expect(engine.write('images', [{ id: 2, tags: ['cat'], score: 2 }, { id: 3, tags: ['cat'], score: 'many' }])).rejects.toThrow(/failed to index/);
    expect(await engine.search('images', request)).toEqual({ ids: [1, 2], total: 2 });
  });

  it('a sort field change reorders a kept answer', async () => {
    const engine = new EmbeddedEngine();
    await engine.ensureIndex({ name: 'images', mapping });
    const doc = (id: number, score: number) => ({ id, tags: ['safe'], score, approved: true });
    await engine.write('images', [doc(1, 1), doc(2, 2), doc(3, 3)]);
    const request: SearchRequest = { query: { term: { tags: 'safe' } } as Query, sort: [{ score: 'desc' }, { id: 'desc' }] as SortClause[] };
    expect((await engine.search('images', request)).ids).toEqual([3, 2, 1]);
    await engine.write('images', [doc(1, 10)]);
    expect((await engine.search('images', request)).ids).toEqual([1, 3, 2]);
  });

  it("a filter's hidden tags, remembered, take in documents written after", async () => {
    const engine = new EmbeddedEngine({ resultCache: false });
    await engine.ensureIndex({ name: 'images', mapping });
    const doc = (id: number, tagIds: number[], score = 0) => ({ id, tags: ['safe'], tag_ids: tagIds, score, approved: true });
    // enough documents that the listing's exclusions are remembered as one set
    await engine.write('images', Array.from({ length: 2000 }, (_, i) => doc(i + 1, [i % 4])));
    const request: SearchRequest = { query: listing({ range: { score: { gte: 0 } } } as Query, [1, 2]), size: 0 };
    expect((await engine.search('images', request)).total).toBe(1000);
    // 2001 is hidden, 2002 is not, 1 becomes hidden
    await engine.write('images', [doc(2001, [2]), doc(2002, [3]), doc(1, [1])]);
    expect((await engine.search('images', request)).total).toBe(1000);
    await engine.write('images', [doc(2003, [3], -1)]);
    expect((await engine.search('images', request)).total).toBe(1000);
    // 2 is no longer hidden
    await engine.write('images', [doc(2, [0], 5)]);
    expect((await engine.search('images', request)).total).toBe(1001);
  });

  it('keeps no answer that reads the clock or was ordered by a seed drawn for it', () => {
    const q = { term: { tags: 'safe' } } as Query;
    expect(answerKey({ query: q })).not.toBeNull();
    expect(answerKey({ query: { range: { created_at: { gte: 'now-1d/d' } } } as Query })).toBeNull();
    expect(answerKey({ query: { bool: { filter: [{ term: { created_at: 'now' } }] } } as Query })).toBeNull();
    expect(answerKey({ query: q, oneOff: true })).toBeNull();
    expect(answerKey({ query: q, sort: [{ 'galleries.position': { nested: { path: 'galleries', filter: { range: { 'galleries.at': { lt: 'now' } } } } } }] as SortClause[] })).toBeNull();
    expect(answerKey({ query: q, from: 10 })).not.toBe(answerKey({ query: q, from: 20 }));
  });
});
