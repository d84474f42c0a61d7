/**
 * Search memory: the temporary arrays of one search are handed to the next one, so nothing the
 * engine keeps past a search may live there. Each engine case keeps something (a remembered
 * filter, a pattern's cached expansion, postings moved into their lists during a search, the
 * universe of a nested path), then runs other searches that overwrite the reused memory, then
 * asks again and checks the answer against the documents.
 */
import { describe, expect, it } from 'vitest';
import type { Query } from '../../grammar/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { outsideSearchMemory, u16, u32, withSearchMemory } from '../../src/search/embedded/search-memory.js';
import type { IndexDocument } from '../../src/search/engine.js';
import { conformanceMapping } from './conformance.js';

describe('search memory', () => {
  it('hands out zeroed arrays and takes them back when the search ends', () => {
    let kept: Uint32Array | undefined;
    withSearchMemory(() => {
      kept = u32(1000);
      expect(kept.every((x) => x === 0)).toBe(true);
      kept.fill(7);
    });
    expect(kept!.every((x) => x === 0)).toBe(true);
  });

  it('keeps what is built outside it, and releases only when the outermost search ends', () => {
    let own: Uint16Array | undefined;
    let inner: Uint16Array | undefined;
    withSearchMemory(() => {
      own = outsideSearchMemory(() => u16(10).fill(3));
      withSearchMemory(() => {
        inner = u16(10).fill(5);
      });
      expect(inner!.every((x) => x === 5)).toBe(true);
    });
    expect(own!.every((x) => x === 3)).toBe(true);
    expect(inner!.every((x) => x === 0)).toBe(true);
  });

  it('gives distinct arrays past its own size, each holding its values', () => {
    withSearchMemory(() => {
      const arrays = Array.from({ length: 40 }, (_, i) => u32(150_000).fill(i + 1));
      arrays.forEach((a, i) => expect(a.every((x) => x === i + 1)).toBe(true));
    });
  });
});

const spec = { name: 'images', mapping: conformanceMapping };
const q = (x: unknown) => x as Query;

/** Doc i: tag_ids `a<i % 7>` and `b<i % 13>`, tags `t<i % 5>`, a gallery when i % 3 is 0. */
function doc(i: number, extraTag?: string): IndexDocument {
  return {
    id: i,
    score: i % 100,
    tag_ids: [`a${i % 7}`, `b${i % 13}`],
    tags: extraTag ? [`t${i % 5}`, extraTag] : [`t${i % 5}`],
    galleries: i % 3 === 0 ? [{ id: i % 11, position: i }] : [],
  };
}

async function engineWith(count: number): Promise<EmbeddedEngine> {
  const engine = new EmbeddedEngine();
  await engine.ensureIndex(spec);
  for (let i = 1; i <= count; i += 5000) {
    await engine.write('images', Array.from({ length: Math.min(5000, count - i + 1) }, (_, k) => doc(i + k)));
  }
  return engine;
}

async function idsOf(engine: EmbeddedEngine, query: unknown): Promise<number[]> {
  const r = await engine.search('images', { query: q(query), sort: [{ id: 'asc' }], size: 100_000 });
  expect(r.total).toBe(r.ids.length);
  return r.ids;
}

/** Searches whose temporaries fill the reused memory with other documents. */
async function otherSearches(engine: EmbeddedEngine): Promise<void> {
  for (let k = 0; k < 5; k++) {
    await idsOf(engine, { bool: { should: [{ term: { tags: `t${k}` } }, { range: { score: { gte: k * 10 } } }] } });
    await idsOf(engine, { bool: { must: { term: { tags: `t${(k + 1) % 5}` } }, must_not: { term: { tag_ids: `b${k}` } } } });
  }
}

const range = (from: number, to: number, keep: (i: number) => boolean) =>
  Array.from({ length: to - from + 1 }, (_, k) => from + k).filter(keep);

describe('what the embedded engine keeps past a search', () => {
  it("a remembered filter's hidden values", async () => {
    const engine = await engineWith(30_000);
    for (const hidden of [['a1', 'a2'], ['a1', 'a2', 'a3', 'a4']]) {
      const query = { bool: { must: { match_all: {} }, must_not: { terms: { tag_ids: hidden } } } };
      const want = range(1, 30_000, (i) => !hidden.includes(`a${i % 7}`));
      expect(await idsOf(engine, query)).toEqual(want);
      await otherSearches(engine);
      expect(await idsOf(engine, query)).toEqual(want);
    }
  });

  it("a listing's remembered exclusions", async () => {
    const engine = await engineWith(30_000);
    const query = { bool: { must: { match_all: {} }, must_not: [{ terms: { tag_ids: ['a1', 'a2'] } }, { term: { tags: 't3' } }] } };
    const want = range(1, 30_000, (i) => i % 7 !== 1 && i % 7 !== 2 && i % 5 !== 3);
    expect(await idsOf(engine, query)).toEqual(want);
    await otherSearches(engine);
    expect(await idsOf(engine, query)).toEqual(want);
  });

  it('a remembered numeric range, kept as bitsets', async () => {
    const engine = await engineWith(30_000);
    const query = { bool: { must: [{ match_all: {} }, { range: { score: { gte: 90 } } }] } };
    const want = range(1, 30_000, (i) => i % 100 >= 90);
    expect(await idsOf(engine, query)).toEqual(want);
    await otherSearches(engine);
    expect(await idsOf(engine, query)).toEqual(want);
  });

  it("a pattern's cached expansion", async () => {
    const engine = await engineWith(30_000);
    const query = { wildcard: { tag_ids: { value: 'b1*' } } };
    const want = range(1, 30_000, (i) => [1, 10, 11, 12].includes(i % 13));
    expect(await idsOf(engine, query)).toEqual(want);
    await otherSearches(engine);
    expect(await idsOf(engine, query)).toEqual(want);
  });

  it('postings moved into their lists by a search', async () => {
    const engine = await engineWith(10_000);
    // written after the last search: the next search that reads `tags` files these postings
    await engine.write('images', range(10_001, 30_000, () => true).map((i) => doc(i, 'late')));
    expect(await idsOf(engine, { term: { tags: 't1' } })).toEqual(range(1, 30_000, (i) => i % 5 === 1));
    await otherSearches(engine);
    expect(await idsOf(engine, { term: { tags: 'late' } })).toEqual(range(10_001, 30_000, () => true));
    await engine.write('images', [doc(30_001, 'late')]);
    expect(await idsOf(engine, { term: { tags: 'late' } })).toEqual(range(10_001, 30_001, () => true));
  });

  it('the universe of a nested path', async () => {
    const engine = await engineWith(30_000);
    const query = { nested: { path: 'galleries', query: { bool: { must_not: { term: { 'galleries.id': 4 } } } } } };
    const want = range(1, 30_000, (i) => i % 3 === 0 && i % 11 !== 4);
    expect(await idsOf(engine, query)).toEqual(want);
    await otherSearches(engine);
    expect(await idsOf(engine, query)).toEqual(want);
  });
});
