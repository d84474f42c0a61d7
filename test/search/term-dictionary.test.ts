import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/lib/random.js';
import { compileWildcard } from '../../grammar/index.js';
import { TermDictionary } from '../../src/search/embedded/terms/term-dictionary.js';
import { SortedTermText } from '../../src/search/embedded/terms/term-text.js';
import { dictionaryOf, termsOf } from './dictionaries.js';

/** Tag-like terms over a small alphabet, so that patterns often match. */
const termArb = fc.stringMatching(/^[a-c:\- é]{0,8}$/);
const patternArb = fc.stringMatching(/^[a-c*?\\é]{0,6}$/);


describe('TermDictionary expansions', () => {
  it('wildcard and prefix find exactly the terms a scan of every term finds', () => {
    fc.assert(
      fc.property(fc.array(termArb, { maxLength: 60 }), fc.array(termArb, { maxLength: 10 }), patternArb, (terms, late, pattern) => {
        const dict = dictionaryOf(terms, late);
        const match = compileWildcard(pattern);
        expect(termsOf(dict, dict.wildcardOrds(pattern))).toEqual(termsOf(dict, dict.matchingOrds(match)));
        const prefix = pattern.replace(/[*?\\]/g, '');
        expect(termsOf(dict, dict.prefixOrds(prefix))).toEqual(termsOf(dict, dict.matchingOrds((t) => t.startsWith(prefix))));
      }),
      { numRuns: 400 },
    );
  });

  it('infix search over many terms, after the dictionary grew', () => {
    const names = Array.from({ length: 5000 }, (_, i) => `tag ${i} ${i % 7 === 0 ? 'pony' : 'other'}`);
    const dict = dictionaryOf(names, ['late pony', 'late horse']);
    expect(dict.wildcardOrds('*ony*')).toHaveLength(Math.ceil(5000 / 7) + 1);
    expect(termsOf(dict, dict.wildcardOrds('tag 1?? *ony'))).toEqual(names.filter((n) => /^tag 1\d\d .*ony$/.test(n)).sort());
    dict.intern('another pony');
    dict.sortedOrds(); // the sorted text is rebuilt with the new term
    expect(dict.wildcardOrds('*ony*')).toHaveLength(Math.ceil(5000 / 7) + 2);
  });

  it('reuses the union of an expansion until a term is added', () => {
    const dict = dictionaryOf(Array.from({ length: 600 }, (_, i) => `artist:${i}`));
    const space = 1000;
    const first = dict.cachedUnion('prefix:artist:', () => dict.prefixOrds('artist:'), space);
    expect(first.size).toBe(600);
    expect(dict.cachedUnion('prefix:artist:', () => dict.prefixOrds('artist:'), space)).toBe(first);
    dict.addOne(700, dict.intern('artist:new'));
    const after = dict.cachedUnion('prefix:artist:', () => dict.prefixOrds('artist:'), space);
    expect(after).not.toBe(first);
    expect(after.size).toBe(601);
    expect(after.has(700)).toBe(true);
  });

  it('keeps a union across postings of known terms, patched: it equals the union made afresh', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 4 }), { maxLength: 200 }), fc.nat(), (later, split) => {
        const dict = new TermDictionary();
        const ords = Array.from({ length: 31 }, (_, t) => dict.intern(`t${t % 3 === 0 ? 'x' : 'y'}${t}`));
        let doc = 0;
        const add = (terms: number[]) => {
          if (terms.length > 0) dict.addDoc(doc, terms.map((t) => ords[t]!));
          doc++;
        };
        const cut = split % (later.length + 1);
        later.slice(0, cut).forEach(add);
        const key = 'wildcard:s:tx*';
        const kept = dict.cachedUnion(key, () => dict.wildcardOrds('tx*'), 1000);
        later.slice(cut).forEach(add);
        // the kept object is served again, and holds what a new union holds
        expect(dict.cachedUnion(key, () => dict.wildcardOrds('tx*'), 1000)).toBe(kept);
        expect([...kept.toArray()]).toEqual([...dict.union(dict.wildcardOrds('tx*'), 1000).toArray()]);
      }),
    );
  });
});

describe('TermDictionary postings', () => {
  /** Documents in order, each with some terms; enough of them to take the bulk flush path too. */
  const docsArb = fc.array(fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 4 }), { maxLength: 700 });

  it('single-document terms and lists answer like a map of sets, also after a trim midway and a restore', () => {
    fc.assert(
      fc.property(docsArb, fc.nat(), (docs, trimAt) => {
        const dict = new TermDictionary();
        const expected = new Map<string, Set<number>>();
        docs.forEach((terms, doc) => {
          if (doc === trimAt % (docs.length + 1)) dict.trim();
          const ords = terms.map((t) => dict.intern(`t${t}`));
          if (ords.length > 0) dict.addDoc(doc, ords);
          for (const t of terms) expected.set(`t${t}`, (expected.get(`t${t}`) ?? new Set()).add(doc));
        });
        const check = (d: TermDictionary) => {
          for (const [term, set] of expected) {
            const ord = d.ordOf(term)!;
            const want = [...set].sort((a, b) => a - b);
            expect([...d.docsOf(ord)]).toEqual(want);
            expect(d.docCount(ord)).toBe(want.length);
            const seen: number[] = [];
            d.forEachDoc(ord, (x) => seen.push(x));
            expect(seen).toEqual(want);
            expect([...d.lookup(term).toArray()]).toEqual(want);
          }
          const all = [...expected.keys()].map((t) => d.ordOf(t)!);
          const union = [...new Set([...expected.values()].flatMap((x) => [...x]))].sort((a, b) => a - b);
          expect([...d.union(all, docs.length).toArray()]).toEqual(union);
        };
        check(dict);
        const restored = new TermDictionary();
        const lists = Array.from({ length: dict.size }, (_, o) => dict.docsOf(o));
        const offsets = new Uint32Array(lists.length + 1);
        lists.forEach((l, i) => (offsets[i + 1] = offsets[i]! + l.length));
        const flat = new Uint32Array(offsets[lists.length]!);
        lists.forEach((l, i) => flat.set(l, offsets[i]!));
        restored.restore(Array.from({ length: dict.size }, (_, o) => dict.termAt(o)), offsets, flat, dict.docs, dict.sortedOrds());
        check(restored);
      }),
      { numRuns: 150 },
    );
  });
});

describe('TermDictionary postings past the flat lists', () => {
  it('two dictionaries filled side by side keep every term, short, long (bitmaps) and single, through flushes, a trim and a restore', () => {
    const random = mulberry32(17);
    const dicts = [new TermDictionary(), new TermDictionary()];
    const expected = dicts.map(() => new Map<string, number[]>());
    const docs = 12_000;
    for (let doc = 0; doc < docs; doc++) {
      dicts.forEach((dict, k) => {
        // a common term (a bitmap past 2,048 documents), one near the switch, a tail, a term of its own
        const terms = [`common${k}`, `tail${Math.floor(random() * 3000)}`, `own${doc}`];
        if (random() < 0.2) terms.push(`edge${k}`);
        if (doc % 7 === 0) terms.push(`tail${Math.floor(random() * 3000)}`);
        dict.addDoc(doc, terms.map((t) => dict.intern(t)));
        for (const t of terms) {
          const list = expected[k]!.get(t) ?? [];
          if (list[list.length - 1] !== doc) list.push(doc);
          expected[k]!.set(t, list);
        }
      });
      // reads flush what is pending: now and then midway, one dictionary then the other
      if (doc % 2500 === 1234) dicts[doc % 2]!.docCount(0);
      if (doc === 8000) dicts[1]!.trim();
    }
    dicts.forEach((dict, k) => {
      const check = (d: TermDictionary) => {
        for (const [term, want] of expected[k]!) {
          const ord = d.ordOf(term)!;
          expect(d.docCount(ord), term).toBe(want.length);
          expect(firstDiff(d.docsOf(ord), want), term).toBe('');
          expect(firstDiff(d.lookup(term).toArray(), want), term).toBe('');
        }
        const some = [`common${k}`, `edge${k}`, 'tail5', 'own77'].map((t) => d.ordOf(t)!);
        const union = [...new Set(some.flatMap((o) => [...d.docsOf(o)]))].sort((a, b) => a - b);
        expect(firstDiff(d.union(some, docs).toArray(), union)).toBe('');
      };
      expect(dict.docCount(dict.ordOf(`common${k}`)!)).toBe(docs);
      check(dict);
      const restored = new TermDictionary();
      const lists = Array.from({ length: dict.size }, (_, o) => dict.docsOf(o));
      const offsets = new Uint32Array(lists.length + 1);
      lists.forEach((l, i) => (offsets[i + 1] = offsets[i]! + l.length));
      const flat = new Uint32Array(offsets[lists.length]!);
      lists.forEach((l, i) => flat.set(l, offsets[i]!));
      restored.restore(Array.from({ length: dict.size }, (_, o) => dict.termAt(o)), offsets, flat, dict.docs, dict.sortedOrds());
      check(restored);
      // appends after the trim of a restore: the short lists were packed with no room left
      restored.addDoc(docs, [restored.ordOf('tail5')!, restored.ordOf(`common${k}`)!]);
      expect(restored.docsOf(restored.ordOf('tail5')!).at(-1)).toBe(docs);
      expect(restored.docCount(restored.ordOf(`common${k}`)!)).toBe(docs + 1);
    });
  });
});

/** Where two ascending lists first differ ('' when equal). */
function firstDiff(got: ArrayLike<number>, want: readonly number[]): string {
  const n = Math.max(got.length, want.length);
  for (let i = 0; i < n; i++) if (got[i] !== want[i]) return `at ${i}: got ${got[i]}, want ${want[i]}`;
  return '';
}

describe('SortedTermText', () => {
  it('finds each term holding a literal once, in sorted position order', () => {
    const text = SortedTermText.build(['apony', 'bpony pony', 'cat', 'ponyx']);
    expect(text.positionsContaining('pony')).toEqual([0, 1, 3]);
    expect(text.positionsContaining('x')).toEqual([3]);
    expect(text.positionsContaining('zzz')).toEqual([]);
    expect(text.positionsContaining('')).toBeUndefined();
    expect(text.positionsContaining('a\u0000b')).toBeUndefined();
    expect(SortedTermText.build([]).positionsContaining('a')).toEqual([]);
  });
});
