/**
 * The SIMD kernels against plain word loops, with every placement of operands and result: in
 * search memory (where the kernels read in place) and in ordinary arrays (copied through the
 * scratch slots).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { andCount, andNotWords, andWords, CONTAINER_WORDS, countWords, orWords } from '../../src/search/embedded/postings/bitset-kernels.js';
import { u32, withSearchMemory } from '../../src/search/embedded/search-memory.js';

const bitsIn = (w: Uint32Array) => {
  let n = 0;
  for (const v of w) for (let x = v; x !== 0; x &= x - 1) n++;
  return n;
};

/** 2,048 words, mostly random, with runs of zeros and of ones. */
const wordsArb = fc
  .record({ seed: fc.integer(), zeros: fc.integer({ min: 0, max: 2048 }), ones: fc.integer({ min: 0, max: 2048 }) })
  .map(({ seed, zeros, ones }) => {
    const w = new Uint32Array(CONTAINER_WORDS);
    let s = seed >>> 0;
    for (let i = 0; i < w.length; i++) {
      s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
      w[i] = s ^ (s << 7);
    }
    w.fill(0, 0, zeros);
    w.fill(0xffffffff, Math.max(zeros, CONTAINER_WORDS - ones));
    return w;
  });

type Place = 'search memory' | 'own array';
const placed = (w: Uint32Array, where: Place) => {
  if (where === 'own array') return w.slice();
  const out = u32(w.length);
  out.set(w);
  return out;
};

const cases: Array<[string, (x: Uint32Array, y: Uint32Array, out: Uint32Array) => number, (a: number, b: number) => number]> = [
  ['and', andWords, (a, b) => a & b],
  ['andNot', andNotWords, (a, b) => a & ~b],
  ['or', orWords, (a, b) => a | b],
];

describe('bitset kernels', () => {
  for (const [name, kernel, op] of cases) {
    it(`${name} writes every word and counts its bits, wherever the words are`, () => {
      const places: Place[] = ['search memory', 'own array'];
      fc.assert(
        fc.property(wordsArb, wordsArb, fc.constantFrom(...places), fc.constantFrom(...places), fc.constantFrom(...places), (x, y, px, py, po) => {
          const expected = x.map((v, i) => op(v, y[i]!));
          withSearchMemory(() => {
            const out = placed(new Uint32Array(CONTAINER_WORDS).fill(0xdeadbeef), po);
            const n = kernel(placed(x, px), placed(y, py), out);
            expect(out).toEqual(expected);
            expect(n).toBe(bitsIn(expected));
          });
        }),
        { numRuns: 60 },
      );
    });
  }

  it('counts an intersection without writing it anywhere it can be seen', () => {
    fc.assert(
      fc.property(wordsArb, wordsArb, (x, y) => {
        const before = [x.slice(), y.slice()];
        expect(andCount(x, y)).toBe(bitsIn(x.map((v, i) => v & y[i]!)));
        expect([x, y]).toEqual(before);
      }),
      { numRuns: 40 },
    );
  });

  it('counts whole containers and shorter runs of words', () => {
    fc.assert(
      fc.property(wordsArb, fc.integer({ min: 0, max: CONTAINER_WORDS }), (x, len) => {
        // the shorter run first leaves its tail in the scratch slot: the next count must not see it
        expect(countWords(x)).toBe(bitsIn(x));
        expect(countWords(x.subarray(0, len))).toBe(bitsIn(x.subarray(0, len)));
        withSearchMemory(() => expect(countWords(placed(x, 'search memory'))).toBe(bitsIn(x)));
      }),
      { numRuns: 60 },
    );
  });
});
