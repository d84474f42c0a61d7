/**
 * The embedded engine's random order: a seeded permutation of the ids, read from its top for
 * dense results and by ranking every hit for sparse ones. Both must give the order of ranking
 * every matching id by hand.
 */
import { describe, expect, it } from 'vitest';
import type { Query, SortClause } from '../../grammar/index.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { idRangeBits, IdPermutation } from '../../src/search/embedded/query/score.js';
import type { IndexDocument } from '../../src/search/engine.js';
import { conformanceMapping } from './conformance.js';

describe('IdPermutation', () => {
  it('is a permutation of [0, 2^bits) that runs backwards', () => {
    for (const bits of [8, 10, 12]) {
      const perm = new IdPermutation(42, bits);
      const seen = new Uint8Array(perm.size);
      for (let id = 0; id < perm.size; id++) {
        const rank = perm.rankOf(id);
        expect(Number.isInteger(rank) && rank >= 0 && rank < perm.size).toBe(true);
        seen[rank]!++;
        expect(perm.idAt(rank)).toBe(id);
      }
      expect(seen.every((x) => x === 1)).toBe(true);
    }
  });

  it('runs backwards over the whole 32-bit range too', () => {
    const perm = new IdPermutation(7, 32);
    for (const id of [0, 1, 65535, 65536, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 123456789]) {
      const rank = perm.rankOf(id);
      expect(rank >= 0 && rank < 2 ** 32).toBe(true);
      expect(perm.idAt(rank)).toBe(id);
    }
  });

  it('changes with the seed, and ranks ids outside its range by a hash within it', () => {
    const a = new IdPermutation(1, 24);
    const b = new IdPermutation(2, 24);
    const ids = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(ids.map((id) => a.rankOf(id))).not.toEqual(ids.map((id) => b.rankOf(id)));
    for (const id of [-1, 1.5, 2 ** 24, 2 ** 40]) {
      const rank = a.rankOf(id);
      expect(rank >= 0 && rank < a.size).toBe(true);
      expect(a.rankOf(id)).toBe(rank);
    }
  });

  it('permutes 2^24 ids, or as many even bits as the largest id needs', () => {
    expect(idRangeBits(0)).toBe(24);
    expect(idRangeBits(2 ** 24 - 1)).toBe(24);
    expect(idRangeBits(2 ** 24)).toBe(26);
    expect(idRangeBits(2 ** 30)).toBe(32);
  });
});

const spec = { name: 'images', mapping: conformanceMapping };
const q = (x: unknown) => x as Query;

/** 60,000 images, every other one tagged `even`, one in a thousand tagged `rare`. */
function docs(ids: number[]): IndexDocument[] {
  return ids.map((id) => ({ id, tags: [id % 2 === 0 ? 'even' : 'odd', ...(id % 1000 === 7 ? ['rare'] : [])] }));
}

async function engineWith(ids: number[]): Promise<EmbeddedEngine> {
  const engine = new EmbeddedEngine();
  await engine.ensureIndex(spec);
  const all = docs(ids);
  for (let i = 0; i < all.length; i += 10_000) await engine.write('images', all.slice(i, i + 10_000));
  return engine;
}

const randomOf = (tag: string | null, seed: number) =>
  q({
    function_score: {
      query: tag === null ? { match_all: {} } : { term: { tags: tag } },
      random_score: { seed, field: 'id' },
      boost_mode: 'replace',
    },
  });

/** The page by hand: every matching id ranked by the permutation of the index's id range. */
function expectedPage(matching: number[], seed: number, maxId: number, order: 'desc' | 'asc', from: number, size: number): number[] {
  const perm = new IdPermutation(seed, idRangeBits(maxId));
  const sign = order === 'desc' ? -1 : 1;
  return matching
    .map((id) => ({ id, r: perm.rankOf(id) }))
    .sort((a, b) => sign * (a.r - b.r) || b.id - a.id)
    .slice(from, from + size)
    .map((x) => x.id);
}

describe('random order in the embedded engine', () => {
  const ids = Array.from({ length: 60_000 }, (_, i) => i + 1);

  it('reads dense and sparse results in the order of ranking every hit', async () => {
    const engine = await engineWith(ids);
    for (const [tag, matching] of [
      [null, ids],
      ['even', ids.filter((id) => id % 2 === 0)],
      ['rare', ids.filter((id) => id % 1000 === 7)],
    ] as const) {
      for (const order of ['desc', 'asc'] as const) {
        const sort: SortClause[] = [{ _score: order }, { id: 'desc' }];
        for (const [from, size] of [
          [0, 25],
          [25, 25],
          [0, 3],
        ] as const) {
          const r = await engine.search('images', { query: randomOf(tag, 1234), sort, from, size });
          expect(r.total).toBe(matching.length);
          expect(r.ids).toEqual(expectedPage([...matching], 1234, 60_000, order, from, size));
        }
      }
    }
  });

  it('keeps an order while images are added below the top of the id range', async () => {
    const engine = await engineWith(ids);
    const sort: SortClause[] = [{ _score: 'desc' }, { id: 'desc' }];
    const before = await engine.search('images', { query: randomOf('odd', 99), sort, size: 200 });
    await engine.write('images', docs([70_001, 70_003]));
    const after = await engine.search('images', { query: randomOf('odd', 99), sort, size: 200 });
    expect(after.ids.filter((id) => id < 70_000)).toEqual(before.ids.slice(0, after.ids.filter((id) => id < 70_000).length));
  });

  it('ranks every hit when some id lies outside the permuted range', async () => {
    const engine = await engineWith([...ids.slice(0, 50_000), -5]);
    const sort: SortClause[] = [{ _score: 'desc' }, { id: 'desc' }];
    const r = await engine.search('images', { query: randomOf('odd', 5), sort, size: 25 });
    const matching = [...ids.slice(0, 50_000).filter((id) => id % 2 === 1), -5];
    expect(r.ids).toEqual(expectedPage(matching, 5, 50_000, 'desc', 0, 25));
  });
});
