/**
 * What a query and a sort read of a document: the fields whose values decide whether the query
 * matches it, its score and its sort keys, by path (`image.tag_ids` for a field inside an
 * object), and for plain term queries on keyword fields only the terms asked for. A write that changes nothing a kept answer reads cannot
 * change that answer's view of the document (result-cache.ts), so its query need not run.
 *
 * Anything not worked out here (an unknown query kind, a nested query, whose children are
 * renumbered by every write of their parent, a random order drawn from document numbers) reads
 * everything: it is checked as before.
 */
import { fieldEntry, isPlainObject as isObject, keywordOf, longForm } from '../../../../grammar/index.js';
import { patternTest } from './leaf-queries.js';

/** What one kept answer reads. */
export interface Reads {
  /** Something not worked out here: every change concerns it. */
  everything: boolean;
  /** Fields read whole: ranges, patterns, text, existence, sorts. */
  fields: Set<string>;
  /** Keyword fields read for some terms only, with those terms. */
  terms: Map<string, Set<string>>;
  /**
   * Keyword fields read for the terms a prefix or wildcard pattern passes, by pattern
   * (`kind:case:pattern`, as the dictionary keeps its unions), with its test of a term.
   */
  patterns: Map<string, Map<string, (term: string) => boolean>>;
}

/**
 * How the fields of a document changed, by path (query/field-changes.ts): the keyword terms added
 * or taken off, or null for a field changed as a whole (with whatever is inside it).
 */
export type FieldChanges = Map<string, Set<string> | null>;

/** Whether a field is a keyword field of the index (term queries on it compare exact terms). */
export type IsKeyword = (path: string) => boolean;

/** Options a leaf query may give beside its one field. */
const LEAF_OPTIONS = ['boost', '_name'];
const TERMS_OPTIONS = ['boost', '_name', 'value_type'];

/** Leaf queries of one field that read it whole (prefix and wildcard: but on a keyword field). */
const WHOLE_FIELD_LEAVES = new Set(['range', 'prefix', 'wildcard', 'regexp', 'fuzzy', 'match', 'match_phrase', 'match_phrase_prefix', 'match_bool_prefix']);

/** Random orders that permute ids (not document numbers, not field values). */
const ID_FIELDS = new Set([undefined, 'id', '_id', '_seq_no']);

export function readsOf(query: unknown, sort: unknown, isKeyword: IsKeyword): Reads {
  const reads: Reads = { everything: false, fields: new Set(), terms: new Map(), patterns: new Map() };
  readQuery(query ?? { match_all: {} }, reads, isKeyword);
  readSort(sort, reads);
  return reads;
}

/**
 * The term a keyword value is compared by, when it is one this module can compare exactly (a
 * string, a whole number); undefined for anything else.
 */
export function exactTerm(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/** The one field of a leaf body as the executor reads it, or undefined when it has not exactly one. */
function leafField(body: unknown, kind: string, options: readonly string[]): [string, unknown] | undefined {
  try {
    return fieldEntry(body, kind, options);
  } catch {
    return undefined;
  }
}

function readWhole(reads: Reads, path: unknown): void {
  if (typeof path === 'string') reads.fields.add(path);
  else reads.everything = true;
}

/** A term query on `path` for exactly `values`: by term on a keyword field, else the whole field. */
function readTerms(reads: Reads, path: string, values: unknown[], isKeyword: IsKeyword): void {
  const terms = isKeyword(path) ? values.map(exactTerm) : undefined;
  if (terms === undefined || terms.some((t) => t === undefined)) {
    readWhole(reads, path);
    return;
  }
  let set = reads.terms.get(path);
  if (set === undefined) reads.terms.set(path, (set = new Set()));
  for (const t of terms) set.add(t!);
}

function readClauses(value: unknown, reads: Reads, isKeyword: IsKeyword): void {
  if (value === undefined) return;
  for (const clause of Array.isArray(value) ? value : [value]) readQuery(clause, reads, isKeyword);
}

function readQuery(q: unknown, reads: Reads, isKeyword: IsKeyword): void {
  if (reads.everything) return;
  const kinds = isObject(q) ? Object.keys(q) : [];
  if (kinds.length !== 1 || !readKind(kinds[0]!, (q as Record<string, unknown>)[kinds[0]!], reads, isKeyword)) reads.everything = true;
}

/** What a query of `kind` reads; false when the kind or its shape is not worked out here. */
function readKind(kind: string, body: unknown, reads: Reads, isKeyword: IsKeyword): boolean {
  switch (kind) {
    case 'match_all':
    case 'match_none':
    case 'ids':
      return true;
    case 'bool':
      if (!isObject(body)) return false;
      for (const k of ['must', 'filter', 'should', 'must_not']) readClauses(body[k], reads, isKeyword);
      return true;
    case 'constant_score':
      if (!isObject(body)) return false;
      readClauses(body.filter, reads, isKeyword);
      return true;
    case 'dis_max':
      if (!isObject(body)) return false;
      readClauses(body.queries, reads, isKeyword);
      return true;
    case 'boosting':
      if (!isObject(body)) return false;
      readClauses(body.positive, reads, isKeyword);
      readClauses(body.negative, reads, isKeyword);
      return true;
    case 'function_score':
      if (!isObject(body)) return false;
      readFunctionScore(body, reads, isKeyword);
      return true;
    case 'exists':
      if (!isObject(body)) return false;
      readWhole(reads, body.field);
      return true;
    case 'term': {
      const entry = leafField(body, kind, LEAF_OPTIONS);
      if (entry === undefined) return false;
      const [path, spec] = entry;
      if (!isObject(spec)) readTerms(reads, path, [spec], isKeyword);
      else if (spec.case_insensitive === true) readWhole(reads, path);
      else readTerms(reads, path, [spec.value], isKeyword);
      return true;
    }
    case 'terms': {
      const entry = leafField(body, kind, TERMS_OPTIONS);
      if (entry === undefined) return false;
      const [path, values] = entry;
      if (Array.isArray(values)) readTerms(reads, path, values, isKeyword);
      else readWhole(reads, path);
      return true;
    }
    case 'prefix':
    case 'wildcard': {
      const entry = leafField(body, kind, LEAF_OPTIONS);
      if (entry === undefined) return false;
      readPattern(reads, kind, entry[0], entry[1], isKeyword);
      return true;
    }
    default: {
      const entry = WHOLE_FIELD_LEAVES.has(kind) ? leafField(body, kind, LEAF_OPTIONS) : undefined;
      if (entry === undefined) return false;
      readWhole(reads, entry[0]);
      return true;
    }
  }
}

/**
 * A prefix or wildcard query on `path`: on a keyword field with a pattern the executor
 * reads as it does (query/execute.ts), the terms it passes; else the whole field.
 */
function readPattern(reads: Reads, kind: 'prefix' | 'wildcard', path: string, spec: unknown, isKeyword: IsKeyword): void {
  let pattern: string | undefined;
  let caseInsensitive = false;
  try {
    const { value, opts } = longForm(spec, kind === 'wildcard' ? ['value', 'wildcard'] : ['value'], kind);
    pattern = typeof value === 'string' || typeof value === 'number' ? keywordOf(value) : undefined;
    caseInsensitive = opts.case_insensitive === true;
  } catch {
    pattern = undefined;
  }
  if (pattern === undefined || !isKeyword(path)) {
    readWhole(reads, path);
    return;
  }
  let byPattern = reads.patterns.get(path);
  if (byPattern === undefined) reads.patterns.set(path, (byPattern = new Map()));
  byPattern.set(`${kind}:${caseInsensitive ? 'i' : 's'}:${pattern}`, patternTest(kind, pattern, caseInsensitive));
}

function readFunctionScore(body: Record<string, unknown>, reads: Reads, isKeyword: IsKeyword): void {
  if (body.query !== undefined) readQuery(body.query, reads, isKeyword);
  const functions: unknown[] = Array.isArray(body.functions) ? [...body.functions] : body.functions === undefined ? [] : [null];
  const shorthand: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!['query', 'functions', 'score_mode', 'boost_mode', 'max_boost', 'boost', 'min_score'].includes(k)) shorthand[k] = v;
  if (Object.keys(shorthand).length > 0) functions.push(shorthand);
  for (const f of functions) {
    if (!isObject(f)) {
      reads.everything = true;
      return;
    }
    for (const [k, v] of Object.entries(f)) {
      if (k === 'weight') continue;
      if (k === 'filter') readQuery(v, reads, isKeyword);
      // a random order of ids; one by another field is not worked out here (it may go by document numbers)
      else if (!(k === 'random_score' && isObject(v) && ID_FIELDS.has(v.field as string | undefined))) reads.everything = true;
    }
  }
}

function readSort(sort: unknown, reads: Reads): void {
  if (sort === undefined || sort === null) return;
  for (const clause of Array.isArray(sort) ? sort : [sort]) {
    const field = typeof clause === 'string' ? clause : isObject(clause) && Object.keys(clause).length === 1 ? Object.keys(clause)[0]! : undefined;
    // `_score` reads what the query reads; `_id`, `_script` and the like are not worked out here
    if (field === '_score') continue;
    if (field === undefined || field.startsWith('_')) {
      reads.everything = true;
      return;
    }
    // a nested sort reads its own field (its filter reads inside it)
    reads.fields.add(field);
  }
}
