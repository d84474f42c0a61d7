/**
 * The evaluator's dispatch on query kinds, and the clauses that combine or scope others: `bool`
 * (with `minimum_should_match`), `nested`, the wrappers OpenSearch scores differently but filters
 * alike, and `exists` and `ids`.
 */
import { asClauses, asObject, isPlainObject, queryError } from '../match/query-body.js';
import { minimumShouldMatch } from '../match/minimum-should-match.js';
import { allOf, anyOf } from './combine.js';
import { resolveField, resolveNestedPath, type Ctx } from './fields.js';
import { compileRange } from './range.js';
import { compileTerm, compileTerms } from './term.js';
import { compileFuzzy, compileMatch, compileMatchPhrase, compilePrefixLike } from './text.js';
import { makeAnyValue, makeObjects, MATCH_ALL, MATCH_NONE, type DocPredicate } from './values.js';

export function compileQuery(q: unknown, ctx: Ctx): DocPredicate {
  const obj = asObject(q, 'query');
  const keys = Object.keys(obj);
  if (keys.length !== 1) {
    throw new Error(`A query must have exactly one kind, got ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  }
  const kind = keys[0] as string;
  const body = obj[kind];
  switch (kind) {
    case 'bool':
      return compileBool(asObject(body, kind), ctx);
    case 'match_all':
      return MATCH_ALL;
    case 'match_none':
      return MATCH_NONE;
    case 'term':
      return compileTerm(body, ctx);
    case 'terms':
      return compileTerms(body, ctx);
    case 'range':
      return compileRange(body, ctx);
    case 'exists':
      return compileExists(body, ctx);
    case 'ids':
      return compileIds(body, ctx);
    case 'prefix':
      return compilePrefixLike(body, ctx, 'prefix');
    case 'wildcard':
      return compilePrefixLike(body, ctx, 'wildcard');
    case 'fuzzy':
      return compileFuzzy(body, ctx);
    case 'match':
      return compileMatch(body, ctx);
    case 'match_phrase':
      return compileMatchPhrase(body, ctx);
    case 'nested':
      return compileNested(asObject(body, kind), ctx);
    case 'function_score': {
      const fs = asObject(body, kind);
      return fs.query === undefined ? MATCH_ALL : compileQuery(fs.query, ctx);
    }
    case 'constant_score': {
      const cs = asObject(body, kind);
      if (cs.filter === undefined) throw queryError(kind, 'requires a [filter]');
      return compileQuery(cs.filter, ctx);
    }
    case 'dis_max': {
      const dm = asObject(body, kind);
      const parts = asClauses(dm.queries, kind).map((c) => compileQuery(c, ctx));
      return anyOf(parts);
    }
    case 'boosting': {
      const b = asObject(body, kind);
      if (b.positive === undefined) throw queryError(kind, 'requires [positive]');
      return compileQuery(b.positive, ctx);
    }
    default:
      throw new Error(`Unsupported query kind: ${kind}`);
  }
}

function compileBool(body: Record<string, unknown>, ctx: Ctx): DocPredicate {
  for (const key of Object.keys(body)) {
    if (!['must', 'filter', 'should', 'must_not', 'minimum_should_match', 'boost', '_name', 'adjust_pure_negative'].includes(key)) {
      throw queryError('bool', `unknown clause [${key}]`);
    }
  }
  const required = [...asClauses(body.must, 'bool'), ...asClauses(body.filter, 'bool')].map((c) => compileQuery(c, ctx));
  const should = asClauses(body.should, 'bool').map((c) => compileQuery(c, ctx));
  const mustNot = asClauses(body.must_not, 'bool').map((c) => compileQuery(c, ctx));

  const parts: DocPredicate[] = [...required];
  // OpenSearch applies minimum_should_match to zero should clauses too: a positive one then
  // matches nothing (a bool of only must_not drops it when it adds its match_all).
  const emptyShouldSpec = should.length === 0 && required.length > 0 ? body.minimum_should_match : undefined;
  if (emptyShouldSpec !== undefined && minimumShouldMatch(0, emptyShouldSpec as number | string) > 0) return MATCH_NONE;
  if (should.length > 0) {
    const spec = body.minimum_should_match as number | string | undefined;
    // With no must or filter clause Lucene still wants one should clause, whatever the spec says.
    const msm = Math.max(spec !== undefined ? minimumShouldMatch(should.length, spec) : 0, required.length > 0 ? 0 : 1);
    if (msm > should.length) return MATCH_NONE;
    if (msm === 1) parts.push(anyOf(should));
    else if (msm === should.length) parts.push(allOf(should));
    else if (msm > 1) {
      parts.push((d) => {
        let hits = 0;
        for (let i = 0; i < should.length; i++) {
          if ((should[i] as DocPredicate)(d) && ++hits >= msm) return true;
          if (hits + (should.length - i - 1) < msm) return false;
        }
        return false;
      });
    }
  }
  if (mustNot.length > 0) {
    const excluded = anyOf(mustNot);
    parts.push((d) => !excluded(d));
  }
  return allOf(parts);
}

function hasAnyValue(v: unknown): boolean {
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) return v.some(hasAnyValue);
  if (isPlainObject(v)) return Object.values(v).some(hasAnyValue);
  return true;
}

function compileExists(body: unknown, ctx: Ctx): DocPredicate {
  const obj = asObject(body, 'exists');
  const name = obj.field;
  if (typeof name !== 'string') throw queryError('exists', 'requires a [field]');
  const field = resolveField(ctx, name);
  if (field.kind === 'none') return MATCH_NONE;
  const any = makeAnyValue(field.segs);
  return (d) => any(d, hasAnyValue);
}

function compileIds(body: unknown, ctx: Ctx): DocPredicate {
  const obj = asObject(body, 'ids');
  const values = obj.values ?? [];
  if (!Array.isArray(values)) throw queryError('ids', '[values] must be an array');
  if (ctx.scope !== null) return MATCH_NONE;
  const ids = new Set(values.map((v) => String(v)));
  return (d) => {
    const id = d._id ?? d.id;
    return id !== undefined && id !== null && ids.has(String(id));
  };
}

function compileNested(body: Record<string, unknown>, ctx: Ctx): DocPredicate {
  const path = body.path;
  if (typeof path !== 'string') throw queryError('nested', 'requires a [path]');
  if (body.query === undefined) throw queryError('nested', 'requires a [query]');
  const rel = resolveNestedPath(ctx, path, body.ignore_unmapped === true);
  if (rel === null) return MATCH_NONE;
  const inner = compileQuery(body.query, { ...ctx, scope: path });
  const objects = makeObjects(rel);
  return (d) => objects(d, inner);
}
