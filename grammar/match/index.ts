/**
 * MODULE match: what a leaf query means for one value, with OpenSearch's semantics, written once
 * for both the DSL evaluator (one document at a time) and the embedded engine (term dictionaries
 * and columns). Here: reading a leaf query's body, keywords, numbers, booleans, dates and IP
 * addresses as indexed, range bounds, wildcard and fuzzy terms, term order, and `match` arithmetic.
 * Pure code.
 */
export { asClauses, asObject, fieldEntry, isPlainObject, longForm, queryError, scalarQueryValue } from './query-body.js';
export { keywordOf } from './keyword.js';
export { intervalTest } from './interval.js';
export { readRangeBounds, type RangeBounds } from './range-bounds.js';
export { numericBound, numericTerm, queryNumber, type NumericKind } from './numbers.js';
export { booleanRangeTest, queryBoolean } from './booleans.js';
export { dateBoundAt, dateRangeInterval, dateTermInterval, type DateBound, type DateInterval } from './date-range.js';
export { ipKey, ipKeyRange, ipRangeKeys } from './ip.js';
export { fuzzyMatcher, fuzzyOptions, fuzzyPrefix, type FuzzyOptions } from './fuzzy.js';
export { minimumShouldMatch } from './minimum-should-match.js';
export { queryAnalyzer, requiredMatchTerms } from './match-query.js';
export { sloppyPhraseMatches } from './phrase.js';
export {
  codePointLength,
  compareStrings,
  compileWildcard,
  editDistanceUpTo,
  fuzzyMaxEdits,
  hasWildcard,
  wildcardLiteralPrefix,
  wildcardLiterals,
  withinEditDistance,
  type WildcardMatcher,
} from './patterns.js';
