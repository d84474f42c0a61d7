/**
 * The search language: query text → syntax tree → OpenSearch query DSL.
 *
 *     compileQuery('safe, solo', { fields: imageFields, role: 'user', context: { userId: 1 } })
 *
 * Also what that DSL means: `match/` says how a leaf query (term, range, wildcard, fuzzy, date,
 * IP …) matches a value, for the embedded engine and for `evaluate/`, which runs a query against
 * one document. Everything here is pure and imports nothing of the rest of the project; the rest
 * of the project imports the grammar through this file, and through `compiler.ts` for what turns
 * text into a query (src/contexts/search alone, besides tools, benchmarks and tests). Errors of the language are
 * `QueryError` (message in the reference wording, position in the text); nothing else is thrown
 * for bad input.
 */
export type { Query, SearchBody, SortClause } from './dsl.js';
export type { FieldMapping, IndexMapping, ScalarType } from './mapping.js';
export type { AndNode, BoostNode, NotNode, OrNode, QueryAst, QueryNode, Span, TermNode } from './ast.js';
export { countNodes } from './ast.js';
export { QueryError, isQueryError, positionAt, type SourcePosition } from './errors.js';
export { DEFAULT_LIMITS, type QueryLimits } from './limits.js';
export { parse, parseMessages, type ParseOptions } from './parser.js';
export { print, printTerm, type PrintOptions } from './print.js';
export { foldChain, negate, MAX_CLAUSE_COUNT, type CompileOptions } from './compile.js';
export { splitTermRange, type RangeOp, type TermTarget } from './term-range.js';
export {
  customField,
  defineFieldSet,
  field,
  fieldsForRole,
  fieldsOf,
  isRole,
  keepCase,
  lowercase,
  roleTier,
  type CustomTransform,
  type FieldOptions,
  type FieldSet,
  type FieldSpec,
  type FieldType,
  type Normalizer,
  type ResolvedFields,
  type Role,
  type RoleTier,
  type TransformInput,
} from './fields.js';
export { filterIdsIn, type FilterRule, type QueryContext, type WatchList } from './context.js';
export { customMessages, filterIdTransform, galleryIdTransform, myTransform, watchedTransform } from './custom.js';
export { checkEachLine, multilineLines, normalizeMultiline, type WrittenLine } from './normalize.js';
export { cleanTagName, slugify, splitNamespace, TAG_NAMESPACES } from './tag-name.js';
export { DATE_RANGE, formatUtc } from './values/date.js';
export { junkText, lex } from './lexer.js';
export { clausePredicates, matchClauses, type Clause, type ClauseKind, type ClauseMatch, type ClausePredicates } from './clauses.js';
export { compileEvaluator, evaluate, type Doc, type DocPredicate, type EvaluateOptions } from './evaluate/index.js';
export {
  analyze,
  analyzeStandard,
  analyzeWithPositions,
  analyzerFor,
  lowercase as lowercaseToken,
  MAX_TOKEN_LENGTH,
  stem,
  STOP_WORDS,
  tokenize,
  type AnalyzedText,
} from './text.js';
export {
  asClauses,
  asObject,
  booleanRangeTest,
  codePointLength,
  compareStrings,
  compileWildcard,
  dateBoundAt,
  dateRangeInterval,
  dateTermInterval,
  editDistanceUpTo,
  fieldEntry,
  fuzzyMatcher,
  fuzzyMaxEdits,
  fuzzyOptions,
  fuzzyPrefix,
  hasWildcard,
  intervalTest,
  ipKey,
  ipKeyRange,
  ipRangeKeys,
  isPlainObject,
  keywordOf,
  longForm,
  minimumShouldMatch,
  numericBound,
  numericTerm,
  queryAnalyzer,
  queryBoolean,
  queryError,
  queryNumber,
  readRangeBounds,
  requiredMatchTerms,
  scalarQueryValue,
  sloppyPhraseMatches,
  wildcardLiteralPrefix,
  wildcardLiterals,
  withinEditDistance,
  type DateBound,
  type DateInterval,
  type FuzzyOptions,
  type NumericKind,
  type RangeBounds,
  type WildcardMatcher,
} from './match/index.js';
export { compileDateBound, parseDateBound, parseTimeZone, toEpochMillis, type DateBoundOptions } from './dates.js';
