import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringTerms } from '../../src/search/embedded/terms/term-store.js';

/** Terms of every kind: one byte a character, wider characters, lone surrogates, empty. */
const termArb = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.string({ unit: fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c)), maxLength: 6 }),
  fc.string({ unit: fc.constantFrom('a', 'b', '\u00e9', '\ud800', '\udc00', '\u{1f600}'), maxLength: 4 }),
);

const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** compareStrings as its documentation states it, written out on code points. */
function codePointOrder(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

describe('StringTerms', () => {
  it('finds every term it holds by ordinal and none it does not, through table growth and trims', () => {
    fc.assert(
      fc.property(fc.uniqueArray(termArb, { maxLength: 300 }), termArb, fc.nat(300), (terms, probe, trimAt) => {
        const store = new StringTerms();
        terms.forEach((t, i) => {
          if (i === trimAt) store.trim();
          expect(store.add(t)).toBe(i);
        });
        expect(store.size).toBe(terms.length);
        terms.forEach((t, i) => {
          expect(store.at(i)).toBe(t);
          // an equal string that is another object
          expect(store.find(`${t}!`.slice(0, -1))).toBe(i);
        });
        expect(store.find(probe)).toBe(terms.indexOf(probe));
        store.trim();
        terms.forEach((t, i) => expect(store.find(t)).toBe(i));
      }),
      { numRuns: 200 },
    );
  });

  it('orders terms by code point, surrogate pairs after every other character', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.oneof(termArb, fc.string({ unit: 'grapheme', maxLength: 4 })), { minLength: 2, maxLength: 40 }), (terms) => {
        const store = new StringTerms();
        for (const t of terms) store.add(t);
        for (let a = 0; a < terms.length; a++) {
          for (let b = 0; b < terms.length; b++) {
            // lone surrogates have no code point order of their own: compare only whole ones
            if (LONE_SURROGATE.test(terms[a]!) || LONE_SURROGATE.test(terms[b]!)) continue;
            expect(Math.sign(store.compare(a, b))).toBe(Math.sign(codePointOrder(terms[a]!, terms[b]!)));
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('keeps terms of one byte a character as their characters, with no string per term', () => {
    const store = new StringTerms();
    for (let i = 0; i < 10_000; i++) store.add(`image-${i}.png`);
    store.trim();
    const chars = Array.from({ length: 10_000 }, (_, i) => `image-${i}.png`.length).reduce((a, b) => a + b, 0);
    // characters, one offset each (and one more), and a table at most half full
    expect(store.byteSize()).toBe(chars + 4 * 10_001 + 4 * 32_768);
    store.add('ünïcödé ☃');
    expect(store.at(10_000)).toBe('ünïcödé ☃');
    expect(store.find('ünïcödé ☃')).toBe(10_000);
    expect(store.find('image-9999.png')).toBe(9999);
  });
});
