import { TermDictionary } from '../../src/search/embedded/terms/term-dictionary.js';

/** A dictionary of `terms`, one document each, sorted once and then grown by `late` (left pending, unsorted). */
export function dictionaryOf(terms: string[], late: string[] = []): TermDictionary {
  const dict = new TermDictionary();
  let doc = 0;
  for (const t of terms) dict.addOne(doc++, dict.intern(t));
  dict.sortedOrds();
  for (const t of late) dict.addOne(doc++, dict.intern(t));
  return dict;
}

/** The terms of `ords`, sorted. */
export const termsOf = (dict: TermDictionary, ords: number[]): string[] => ords.map((o) => dict.termAt(o)).sort();
