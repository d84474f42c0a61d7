/**
 * MODULE evaluate: OpenSearch query DSL against one document, in process, with OpenSearch's
 * semantics.
 *
 * Used for per-image decisions (the API's `spoilered` flag, forced filters, filter previews) and
 * as a test oracle of both engines (the embedded engine, which shares grammar/match/ with it, is
 * also checked against PostgreSQL). It deliberately does not reproduce the reference evaluator's
 * defects: a `bool` without `should` matches when its other clauses do, multi-valued fields match
 * on any element, dates compare as instants, text queries go through the field's analyzer, `?` is
 * exactly one character, and `nested` works.
 *
 * `compileEvaluator` turns a query into a closure tree once (values pre-parsed, patterns
 * pre-compiled, dates pre-resolved); `evaluate` caches compiled queries by query object.
 *
 * Files: fields.ts (field resolution against the mapping), values.ts (reading values out of
 * documents), compile.ts (query kinds, bool, exists, ids, nested), term.ts (term, terms),
 * range.ts and date-range.ts (range), text.ts (prefix, wildcard, fuzzy, match, match_phrase),
 * fast-paths.ts (top-level fields compared in the hot loop), combine.ts (all of, any of).
 */
import type { Query } from '../dsl.js';
import type { IndexMapping } from '../mapping.js';
import { compileQuery } from './compile.js';
import type { Doc, DocPredicate } from './values.js';

export type { Doc, DocPredicate } from './values.js';

export interface EvaluateOptions {
  /** Clock for date math (`now-3d/d`), in epoch milliseconds. Defaults to `Date.now`. */
  now?: () => number;
}

interface CacheEntry {
  mapping: IndexMapping | undefined;
  now: (() => number) | undefined;
  fn: DocPredicate;
}
const compiledCache = new WeakMap<object, CacheEntry[]>();

/**
 * Whether `doc` matches `query`. `mapping`, when given, types the fields (as OpenSearch would
 * read them); without it each value's JavaScript type decides. Compiled queries are cached by
 * query object, so evaluating one query against many documents compiles it once.
 */
export function evaluate(query: Query, doc: Doc, mapping?: IndexMapping, options?: EvaluateOptions): boolean {
  if (typeof query !== 'object' || query === null) return compileEvaluator(query, mapping, options)(doc);
  const now = options?.now;
  let entries = compiledCache.get(query);
  if (entries === undefined) {
    entries = [];
    compiledCache.set(query, entries);
  }
  for (const e of entries) {
    if (e.mapping === mapping && e.now === now) return e.fn(doc);
  }
  const fn = compileEvaluator(query, mapping, options);
  if (entries.length >= 8) entries.shift();
  entries.push({ mapping, now, fn });
  return fn(doc);
}

/**
 * Compiles `query` into a predicate over documents. Throws (naming the problem) on unknown query
 * kinds and on queries OpenSearch would reject (bad numbers, dates, IPs, booleans, fuzziness).
 */
export function compileEvaluator(query: Query, mapping?: IndexMapping, options?: EvaluateOptions): DocPredicate {
  return compileQuery(query as unknown, { mapping, scope: null, now: options?.now ?? Date.now });
}
