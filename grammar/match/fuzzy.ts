/**
 * Fuzzy terms: a term matches when it keeps the query's first `prefix_length` code points and is
 * within the allowed edits (`fuzziness`, AUTO by the term's length; transpositions count as one
 * edit unless turned off).
 */
import { fuzzyMaxEdits, withinEditDistance } from './patterns.js';

export interface FuzzyOptions {
  maxEdits: number;
  prefixLength: number;
  transpositions: boolean;
}

/**
 * The options of a `fuzzy` query, or of a `match` query's fuzziness (which names its
 * transpositions flag `fuzzy_transpositions`).
 */
export function fuzzyOptions(q: string, opts: Record<string, unknown>, transpositionsKey: 'transpositions' | 'fuzzy_transpositions'): FuzzyOptions {
  return {
    maxEdits: fuzzyMaxEdits(q, (opts.fuzziness ?? 'AUTO') as number | string),
    prefixLength: typeof opts.prefix_length === 'number' ? opts.prefix_length : 0,
    transpositions: opts[transpositionsKey] !== false,
  };
}

/** The prefix every matching term starts with ('' when `prefixLength` is 0). */
export function fuzzyPrefix(q: string, prefixLength: number): string {
  return prefixLength > 0 ? [...q].slice(0, prefixLength).join('') : '';
}

export function fuzzyMatcher(q: string, { maxEdits, prefixLength, transpositions }: FuzzyOptions): (term: string) => boolean {
  const prefix = fuzzyPrefix(q, prefixLength);
  const len = q.length;
  return (s) => {
    if (s === q) return true;
    if (prefix !== '' && !s.startsWith(prefix)) return false;
    // one edit of a code point changes the UTF-16 length by at most 2
    return Math.abs(s.length - len) <= maxEdits * 2 && withinEditDistance(s, q, maxEdits, transpositions);
  };
}
