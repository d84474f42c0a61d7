import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareStrings, compileWildcard, withinEditDistance } from '../../grammar/index.js';
import { HexTerms, storeOf } from '../../src/search/embedded/terms/hex-terms.js';
import { TermDictionary } from '../../src/search/embedded/terms/term-dictionary.js';
import { StringTerms, type TermStore } from '../../src/search/embedded/terms/term-store.js';
import { dictionaryOf, termsOf } from './dictionaries.js';

/** Hash-shaped terms over four digits, so that prefixes are often shared. */
const hexArb = fc.array(fc.constantFrom('0', '9', 'a', 'f'), { minLength: 32, maxLength: 32 }).map((ds) => ds.join(''));
/** Terms a field of hashes may also receive: other case, other length, not hex at all. */
const otherArb = fc.oneof(
  hexArb.map((h) => h.toUpperCase()),
  hexArb.map((h) => h.slice(0, 30)),
  hexArb.map((h) => `${h}00`),
  fc.constantFrom('', 'PENDING', 'not-a-hash', 'g'.repeat(32), 'é'.repeat(32)),
);
/** Mostly hashes, some others, some repeats. */
const termsArb = fc.tuple(hexArb, fc.array(fc.oneof({ weight: 6, arbitrary: hexArb }, { weight: 1, arbitrary: otherArb }), { maxLength: 80 }));

/** Each term once, in order of first appearance, with the store built by interning them in turn. */
function build(first: string, rest: string[]): { distinct: string[]; store: TermStore } {
  const distinct = [...new Set([first, ...rest])];
  return { distinct, store: storeOf(distinct) };
}

function expectSameTerms(store: TermStore, distinct: string[]): void {
  expect(store.size).toBe(distinct.length);
  distinct.forEach((t, ord) => {
    expect(store.at(ord)).toBe(t);
    expect(store.find(t)).toBe(ord);
  });
}

describe('HexTerms', () => {
  it('gives back every term by ordinal and every ordinal by term, with terms of other shapes among them', () => {
    fc.assert(
      fc.property(termsArb, hexArb, otherArb, ([first, rest], probe, otherProbe) => {
        const { distinct, store } = build(first, rest);
        expectSameTerms(store, distinct);
        expect(store.find(probe)).toBe(distinct.indexOf(probe));
        expect(store.find(otherProbe)).toBe(distinct.indexOf(otherProbe));
      }),
      { numRuns: 300 },
    );
  });

  it('compares ordinals as their terms compare', () => {
    fc.assert(
      fc.property(termsArb, ([first, rest]) => {
        const { distinct, store } = build(first, rest);
        for (let a = 0; a < distinct.length; a++) {
          for (let b = 0; b < distinct.length; b++) {
            expect(Math.sign(store.compare(a, b))).toBe(Math.sign(compareStrings(distinct[a]!, distinct[b]!)));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('comes back the same from its packed bytes, and keeps growing after that', () => {
    fc.assert(
      fc.property(termsArb, fc.array(hexArb, { maxLength: 20 }), ([first, rest], later) => {
        const { distinct, store } = build(first, rest);
        if (!(store instanceof HexTerms)) return;
        store.trim();
        const { bytes, others } = store.packed();
        const restored = HexTerms.fromPacked(store.length, store.size, bytes.slice(), others);
        expectSameTerms(restored, distinct);
        const all = [...distinct];
        for (const t of later) {
          if (restored.find(t) >= 0) continue;
          expect(restored.add(t)).toBe(all.length);
          all.push(t);
        }
        expectSameTerms(restored, all);
      }),
      { numRuns: 200 },
    );
  });

  it('holds thousands of hashes through table growth, in little memory', () => {
    const hashes = Array.from({ length: 20_000 }, (_, i) => ((i * 2654435761) >>> 0).toString(16).padStart(8, '0').repeat(16));
    const store = storeOf(hashes);
    expect(store).toBeInstanceOf(HexTerms);
    expectSameTerms(store, hashes);
    store.trim();
    // 64 bytes a term, a table of at most four slots a term
    expect(store.byteSize()).toBeLessThanOrEqual(20_000 * (64 + 16));
  });

  it('is chosen by a first term of hash shape, and given up when other terms pile up', () => {
    expect(storeOf(['safe', 'a'.repeat(128)])).toBeInstanceOf(StringTerms);
    expect(storeOf(['a'.repeat(30)])).toBeInstanceOf(StringTerms);
    expect(storeOf(['A'.repeat(32)])).toBeInstanceOf(StringTerms);
    expect(storeOf(['a'.repeat(33)])).toBeInstanceOf(StringTerms);
    expect(storeOf(['a'.repeat(128), 'b'.repeat(128), 'PENDING'])).toBeInstanceOf(HexTerms);

    const words = Array.from({ length: 40 }, (_, i) => `word ${i}`);
    const mixed = ['0'.repeat(64), ...words];
    const store = storeOf(mixed);
    expect(store).toBeInstanceOf(StringTerms);
    expectSameTerms(store, mixed);
  });
});

describe('TermDictionary over hashes', () => {
  const everyTerm = (dict: TermDictionary) => Array.from({ length: dict.size }, (_, o) => dict.termAt(o));
  const patternArb = fc.stringMatching(/^[09af*?]{0,6}$/);

  it('answers expansions, ranges and term order as a scan of every term does', () => {
    fc.assert(
      fc.property(termsArb, fc.array(hexArb, { maxLength: 8 }), patternArb, hexArb, ([first, rest], late, pattern, other) => {
        const dict = dictionaryOf([first, ...rest], late);
        expect(dict.termStore).toBeInstanceOf(HexTerms);
        const all = everyTerm(dict);
        expect(termsOf(dict, dict.wildcardOrds(pattern))).toEqual(termsOf(dict, dict.matchingOrds(compileWildcard(pattern))));
        const prefix = pattern.replace(/[*?]/g, '');
        expect(termsOf(dict, dict.prefixOrds(prefix))).toEqual(all.filter((t) => t.startsWith(prefix)).sort());
        expect(termsOf(dict, dict.fuzzyOrds(other, { maxEdits: 2, prefixLength: 0, transpositions: true }))).toEqual(all.filter((t) => withinEditDistance(t, other, 2, true)).sort());
        const [lo, hi] = [first, other].sort();
        expect(termsOf(dict, dict.rangeOrds(lo, true, hi, false))).toEqual(all.filter((t) => t >= lo! && t < hi!).sort());
        expect(Array.from(dict.sortedOrds(), (o) => dict.termAt(o))).toEqual([...all].sort(compareStrings));
        expect(dict.ordOf(other)).toBe(all.includes(other) ? all.indexOf(other) : undefined);
      }),
      { numRuns: 300 },
    );
  });
});
