import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StringTerms } from '../../src/search/embedded/terms/term-store.js';

describe('StringTerms', () => {
  it('finds every term it holds by ordinal and none it does not, through table growth', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ unit: 'binary', maxLength: 6 }), { maxLength: 300 }), fc.string({ maxLength: 6 }), (terms, probe) => {
        const store = new StringTerms();
        terms.forEach((t, i) => expect(store.add(t)).toBe(i));
        expect(store.size).toBe(terms.length);
        terms.forEach((t, i) => {
          expect(store.at(i)).toBe(t);
          // an equal string that is another object
          expect(store.find(`${t}!`.slice(0, -1))).toBe(i);
        });
        expect(store.find(probe)).toBe(terms.indexOf(probe));
      }),
      { numRuns: 200 },
    );
  });
});
