/**
 * The compiler from syntax tree to OpenSearch query DSL (reference §3.1), with the reference's
 * shapes: `term` short forms, bool terms as the strings "true"/"false", whole floats as
 * integers, dates as `YYYY-MM-DDTHH:MM:SSZ`, negation as `{"bool":{"must_not": <object>}}`
 * (a negated negation unwraps), chains flattened into one `must`/`should` list while the list
 * to extend holds at most 512 clauses, boosts as `function_score`, and `match_none` for an empty
 * query.
 */
import type { QueryAst, QueryNode, TermNode } from './ast.js';
import type { QueryContext } from './context.js';
import type { Query } from './dsl.js';
import { QueryError } from './errors.js';
import { fieldsForRole, type FieldSet, type FieldSpec, type ResolvedFields, type Role, type TransformInput } from './fields.js';
import { limitMessages, resolveLimits, type QueryLimits } from './limits.js';
import { normalizeMultiline } from './normalize.js';
import { parse } from './parser.js';
import { splitTermRange, type RangeOp } from './term-range.js';
import { parseBool } from './values/bool.js';
import { dateComparison, parseDate } from './values/date.js';
import { parseFloatValue } from './values/float.js';
import { parseInt32 } from './values/int.js';
import { parseIp } from './values/ip.js';
import { parseLiteral } from './values/literal.js';
import { parseNumeric } from './values/numeric.js';
import { ValueError } from './values/value-error.js';
import { trimUnicode } from './whitespace.js';

export interface CompileOptions {
  /** The index's field set. */
  fields: FieldSet;
  /** Who is searching; default anonymous. */
  role?: Role;
  context?: QueryContext;
  limits?: Partial<QueryLimits>;
}

/** Longest list a chain may still be flattened into (reference `@max_clause_count`). */
export const MAX_CLAUSE_COUNT = 512;

export const compileMessages = {
  rangeSpecified: (field: string) => `range specified for ${field}`,
  multipleRanges: (field: string) => `multiple ranges specified for ${field}`,
};

const MATCH_NONE: () => Query = () => ({ match_none: {} });

interface Env {
  input: string;
  fields: ResolvedFields;
  context: QueryContext;
  limits: QueryLimits;
  nowMs: number | undefined;
  /** Next entry of `leaves` for `build`: terms are parsed and built in the same (textual) order. */
  nextLeaf: number;
}

/**
 * Trees of recently parsed texts (under the default limits). Parsing is most of the cost of
 * compiling, the same texts come again and again (the first pages of popular tags, a filter's
 * expression on each of its users' requests), and a tree depends on the text alone: it is kept,
 * and compiled afresh for each caller, whose role, context and clock may differ. Only texts that
 * parsed and compiled once are kept; compiling a kept tree meets its terms in the same order as
 * the parse did, so it reports the same first error.
 */
const parsedTexts = new Map<string, QueryAst>();
const PARSED_TEXTS_MAX = 2000;

/** Parse and compile a query string. Throws `QueryError`. */
export function compileQuery(input: unknown, options: CompileOptions): Query {
  if (typeof input === 'string' && options.limits === undefined) {
    const kept = parsedTexts.get(input);
    if (kept !== undefined) {
      parsedTexts.delete(input);
      parsedTexts.set(input, kept);
      return compile(kept, options);
    }
  }
  const limits = resolveLimits(options.limits);
  const env: Env = {
    input: typeof input === 'string' ? input : '',
    fields: fieldsForRole(options.fields, options.role),
    context: options.context ?? {},
    limits,
    nowMs: undefined,
    nextLeaf: 0,
  };
  const leaves: Query[] = [];
  // Each term is compiled as soon as it is parsed, so an invalid value is reported before a
  // syntax error further on, exactly as the reference does. (`bind` rather than a closure: under
  // tsx every closure created here would also be renamed at run time.)
  const ast = parse(input, { limits, onTerm: compileLeaf.bind(null, env, leaves) });
  if (ast.root === null) return MATCH_NONE();
  const query = build(ast.root, env, leaves, 0);
  if (options.limits === undefined) {
    parsedTexts.set(ast.input, ast);
    if (parsedTexts.size > PARSED_TEXTS_MAX) parsedTexts.delete(parsedTexts.keys().next().value!);
  }
  return query;
}

function compileLeaf(env: Env, leaves: Query[], term: TermNode): void {
  leaves.push(compileTerm(term, env));
}

/** Compile a parsed (or hand-built) tree. Throws `QueryError`. */
export function compile(ast: QueryAst, options: CompileOptions): Query {
  const limits = resolveLimits(options.limits);
  if (ast.root === null) return MATCH_NONE();
  const env: Env = {
    input: ast.input,
    fields: fieldsForRole(options.fields, options.role),
    context: options.context ?? {},
    limits,
    nowMs: undefined,
    nextLeaf: 0,
  };
  return build(ast.root, env, undefined, 0);
}

function build(node: QueryNode, env: Env, leaves: Query[] | undefined, depth: number): Query {
  // A parsed tree is at most four nodes deeper per parenthesis level; hand-built trees are held
  // to the same bound so that nothing recurses without limit.
  if (depth > 4 * (env.limits.maxDepth + 1) + 1) {
    throw QueryError.at(env.input, node.span?.start ?? 0, limitMessages.depth(env.limits.maxDepth));
  }
  switch (node.kind) {
    case 'term':
      return leaves !== undefined ? leaves[env.nextLeaf++]! : compileTerm(node, env);
    case 'and':
      return foldChain(node.children.map((c) => build(c, env, leaves, depth + 1)), 'must');
    case 'or':
      return foldChain(node.children.map((c) => build(c, env, leaves, depth + 1)), 'should');
    case 'not':
      return negate(build(node.child, env, leaves, depth + 1));
    case 'boost':
      return { function_score: { query: build(node.child, env, leaves, depth + 1), boost: node.boost } };
  }
}

/** The list of `{"bool":{key:[…]}}` when the query is exactly that, else undefined. */
function soleList(q: Query, key: 'must' | 'should'): Query[] | undefined {
  const bool = q.bool;
  if (bool === undefined || !hasOneKey(q)) return undefined;
  const list = bool[key];
  return Array.isArray(list) && hasOneKey(bool) ? list : undefined;
}

function hasOneKey(o: object): boolean {
  let n = 0;
  for (const _ in o) if (++n > 1) return false;
  return n === 1;
}

/**
 * The reference folds `a AND (b AND (c …))` from the right: each operand is put in front of the
 * right-hand list when that is a plain `must` (`should`) list of at most 512 clauses, else both
 * become a new two-clause list.
 */
export function foldChain(parts: Query[], key: 'must' | 'should'): Query {
  const right = parts[parts.length - 1]!;
  // `reversed` holds the list of `right` in reverse while `right` is a list this fold built.
  let reversed: Query[] | null = null;
  const initial = soleList(right, key);
  if (initial) reversed = [...initial].reverse();
  for (let i = parts.length - 2; i >= 0; i--) {
    const left = parts[i]!;
    if (reversed !== null && reversed.length <= MAX_CLAUSE_COUNT) {
      reversed.push(left);
    } else {
      const nested: Query = reversed !== null ? listQuery(reversed, key) : right;
      reversed = [nested, left];
    }
  }
  return reversed !== null ? listQuery(reversed, key) : right;
}

function listQuery(reversed: Query[], key: 'must' | 'should'): Query {
  const list = reversed.reverse();
  return key === 'must' ? { bool: { must: list } } : { bool: { should: list } };
}

/** `{"bool":{"must_not": q}}`, or the inner query when `q` is itself exactly such a negation. */
export function negate(q: Query): Query {
  const bool = q.bool;
  if (bool !== undefined && hasOneKey(q) && hasOneKey(bool)) {
    const inner = bool.must_not;
    if (inner !== undefined && inner !== null && typeof inner === 'object' && !Array.isArray(inner)) return inner;
  }
  return { bool: { must_not: q } };
}

/** Offset in the query text of a position inside a term's raw text. */
function inputOffset(term: TermNode, input: string, rawIndex: number): number {
  const span = term.span;
  if (!span) return 0;
  if (!term.quoted) return span.start + rawIndex;
  // Inside quotes, `\"` and `\\` are two characters of input for one of raw.
  let j = span.start + 1;
  for (let r = 0; r < rawIndex && j < span.end; r++) {
    const c = input.charCodeAt(j);
    j += c === 92 && (input.charCodeAt(j + 1) === 34 || input.charCodeAt(j + 1) === 92) ? 2 : 1;
  }
  return j;
}

function failAt(env: Env, term: TermNode, rawIndex: number, message: string): never {
  throw QueryError.at(env.input, inputOffset(term, env.input, rawIndex), message);
}

function compileTerm(term: TermNode, env: Env): Query {
  const { byName, defaultField } = env.fields;
  const target = splitTermRange(term.raw, byName);
  const spec = target.field === null ? defaultField : byName.get(target.field)!;
  try {
    return compileValue(spec, target.range, target.value, target.valueAt, env, term);
  } catch (error) {
    if (error instanceof ValueError) failAt(env, term, target.valueAt + error.at, error.message);
    throw error;
  }
}

function normalizeText(spec: FieldSpec, value: string): string {
  return spec.normalize ? spec.normalize(value) : trimUnicode(value).toLowerCase();
}

function compileValue(spec: FieldSpec, range: RangeOp, value: string, valueAt: number, env: Env, term: TermNode): Query {
  const f = spec.target;
  switch (spec.type) {
    case 'literal':
    case 'ngram': {
      const lit = parseLiteral(value);
      if (range !== 'eq') return failAt(env, term, 0, compileMessages.rangeSpecified(spec.name));
      if (lit.kind === 'wildcard') {
        if (lit.value === '*') return { match_all: {} };
        return { wildcard: { [f]: normalizeText(spec, lit.value) } };
      }
      if (spec.type === 'ngram') return { match_phrase: { [f]: normalizeText(spec, lit.value) } };
      if (lit.fuzz !== undefined) return { fuzzy: { [f]: { value: normalizeText(spec, lit.value), fuzziness: lit.fuzz } } };
      return { term: { [f]: normalizeText(spec, lit.value) } };
    }
    case 'int': {
      const v = parseInt32(value);
      if (v.kind === 'int') return range === 'eq' ? { term: { [f]: v.value } } : rangeQuery(f, range, v.value);
      if (range !== 'eq') return failAt(env, term, 0, compileMessages.multipleRanges(spec.name));
      return { range: { [f]: { gte: v.lower, lte: v.upper } } };
    }
    case 'float': {
      const v = parseFloatValue(value);
      if (v.kind === 'float') return range === 'eq' ? { term: { [f]: v.value } } : rangeQuery(f, range, v.value);
      if (range !== 'eq') return failAt(env, term, 0, compileMessages.multipleRanges(spec.name));
      return { range: { [f]: { gte: v.lower, lte: v.upper } } };
    }
    case 'numeric': {
      const v = parseNumeric(value);
      if (range !== 'eq') return failAt(env, term, 0, compileMessages.rangeSpecified(spec.name));
      return { term: { [f]: v } };
    }
    case 'bool': {
      const v = parseBool(value);
      if (range !== 'eq') return failAt(env, term, 0, compileMessages.rangeSpecified(spec.name));
      return { term: { [f]: v } };
    }
    case 'ip': {
      const v = parseIp(value);
      if (range !== 'eq') return failAt(env, term, 0, compileMessages.rangeSpecified(spec.name));
      return { term: { [f]: v } };
    }
    case 'date':
      return dateQuery(f, range, parseDate(value, () => nowMs(env)));
    case 'custom': {
      if (range !== 'eq') return failAt(env, term, 0, compileMessages.rangeSpecified(spec.name));
      return spec.transform!(transformInput(spec, value, valueAt, env, term));
    }
  }
}

function transformInput(spec: FieldSpec, value: string, valueAt: number, env: Env, term: TermNode): TransformInput {
  return {
    field: spec.name,
    value,
    tier: env.fields.tier,
    context: env.context,
    compileNested(text, context) {
      return compileNested(text, context, env);
    },
    fail(message) {
      return failAt(env, term, valueAt, message);
    },
  };
}

function dateQuery(f: string, range: RangeOp, { lower, upper }: { lower: number; upper: number }): Query {
  switch (range) {
    case 'eq':
      return { range: { [f]: { ...dateComparison('gte', lower), ...dateComparison('lt', upper) } } };
    case 'lte':
      return { range: { [f]: dateComparison('lte', upper) } };
    case 'gt':
      return { range: { [f]: dateComparison('gt', upper) } };
    case 'gte':
      return { range: { [f]: dateComparison('gte', lower) } };
    case 'lt':
      return { range: { [f]: dateComparison('lt', lower) } };
  }
}

function rangeQuery(field: string, range: Exclude<RangeOp, 'eq'>, value: number): Query {
  switch (range) {
    case 'gt':
      return { range: { [field]: { gt: value } } };
    case 'gte':
      return { range: { [field]: { gte: value } } };
    case 'lt':
      return { range: { [field]: { lt: value } } };
    case 'lte':
      return { range: { [field]: { lte: value } } };
  }
}

function nowMs(env: Env): number {
  if (env.nowMs === undefined) {
    const now = env.context.now;
    env.nowMs = now === undefined ? Date.now() : typeof now === 'number' ? now : now.getTime();
  }
  return env.nowMs;
}

/**
 * Compile a saved multi-line query string (a filter's complex string, a watch-list string):
 * normalised line by line (`(a) || (b)`), and `match_none` when it is empty or does not compile,
 * so that a broken saved string never hides (or shows) everything.
 */
export function compileSaved(text: string | null | undefined, options: CompileOptions): Query {
  try {
    return compileQuery(normalizeMultiline(text), options);
  } catch (error) {
    if (error instanceof QueryError) return MATCH_NONE();
    throw error;
  }
}

function compileNested(text: string | null | undefined, context: QueryContext, env: Env): Query {
  return compileSaved(text, { fields: env.fields.set, role: env.fields.tier, context, limits: env.limits });
}
