/**
 * The text side of `match` and `match_phrase`: the query text goes through the query's analyzer
 * (or the field's), and a `match` needs one of its terms (`or`), all (`and`), or as many as
 * `minimum_should_match` asks, but never none.
 */
import { analyzerFor, type AnalyzedText } from '../text.js';
import { minimumShouldMatch } from './minimum-should-match.js';

export function queryAnalyzer(opts: Record<string, unknown>, fieldAnalyzer: (text: string) => AnalyzedText): (text: string) => AnalyzedText {
  return typeof opts.analyzer === 'string' ? analyzerFor(opts.analyzer) : fieldAnalyzer;
}

/** How many of `termCount` query terms a document needs; more than `termCount` matches nothing. */
export function requiredMatchTerms(termCount: number, opts: Record<string, unknown>): number {
  const operator = typeof opts.operator === 'string' ? opts.operator.toLowerCase() : 'or';
  if (operator === 'and') return termCount;
  if (opts.minimum_should_match === undefined) return 1;
  return Math.max(1, minimumShouldMatch(termCount, opts.minimum_should_match as number | string));
}
