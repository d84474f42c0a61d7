/**
 * `term` and `terms`: equality of a field's values with query values, per field kind. What a
 * query value means for each kind is in grammar/match/; here it is applied to document values.
 */
import { toEpochMillis } from '../dates.js';
import { queryBoolean } from '../match/booleans.js';
import { dateTermInterval } from '../match/date-range.js';
import { ipKeyRange } from '../match/ip.js';
import { keywordOf } from '../match/keyword.js';
import { numericTerm, queryNumber } from '../match/numbers.js';
import { fieldEntry, longForm, queryError, scalarQueryValue } from '../match/query-body.js';
import { anyOf } from './combine.js';
import { fastStringEquals, fastStringIn, topLevelKey } from './fast-paths.js';
import { resolveField, type Ctx, type Field } from './fields.js';
import { compileRangeOn } from './range.js';
import {
  analyzedCached,
  canonicalNumber,
  docBoolean,
  docIpKey,
  docNumber,
  IPISH_RE,
  looksLikeDate,
  MATCH_NONE,
  onTerms,
  onValues,
  textValue,
  type DocPredicate,
  type LeafPred,
} from './values.js';

/** Leaf predicate for "value equals q" on a field kind (term, terms, match on non-text). */
export function equalsPredicate(field: Field, raw: string | number | boolean, caseInsensitive: boolean, kind: string): LeafPred | null {
  const name = field.name;
  switch (field.kind) {
    case 'keyword':
    case 'infer': {
      const q = keywordOf(raw) as string;
      if (caseInsensitive) {
        const ql = q.toLowerCase();
        return (v) => keywordOf(v)?.toLowerCase() === ql;
      }
      if (field.kind === 'keyword') {
        const qn = canonicalNumber(q);
        return (v) =>
          typeof v === 'string' ? v === q : typeof v === 'number' ? v === qn : keywordOf(v) === q;
      }
      // inferred: each document value's type decides how to compare
      const qn = typeof raw === 'number' ? raw : canonicalNumber(q) ?? (q.trim() !== '' && Number.isFinite(Number(q)) ? Number(q) : undefined);
      const qb = raw === true || raw === 'true' ? true : raw === false || raw === 'false' ? false : undefined;
      const qNet = IPISH_RE.test(q) ? ipKeyRange(q) ?? null : null;
      // a date-looking document string is a date under dynamic mapping: compare instants
      let qDate: [number, number] | null = typeof raw === 'number' ? [Math.trunc(raw), Math.trunc(raw)] : null;
      if (typeof raw === 'string' && looksLikeDate(raw)) {
        try {
          const { lo, hi } = dateTermInterval(raw, name);
          if (typeof lo === 'number' && typeof hi === 'number') qDate = [lo, hi];
        } catch {
          qDate = null;
        }
      }
      return (v) => {
        switch (typeof v) {
          case 'string':
            if (v === q) return true;
            if (qNet !== null && IPISH_RE.test(v)) {
              const key = docIpKey(v);
              return key !== null && key >= qNet[0] && key <= qNet[1];
            }
            if (qDate !== null && looksLikeDate(v)) {
              const t = toEpochMillis(v);
              return t >= qDate[0] && t <= qDate[1];
            }
            return false;
          case 'number':
            return v === qn;
          case 'boolean':
            return v === qb;
          default:
            if (v instanceof Date && qDate !== null) {
              const t = v.getTime();
              return t >= qDate[0] && t <= qDate[1];
            }
            return false;
        }
      };
    }
    case 'text': {
      // term-level queries on text fields see the indexed (analyzed) terms
      const q = keywordOf(raw) as string;
      return textTermLeaf(field, caseInsensitive ? q.toLowerCase() : q, caseInsensitive);
    }
    case 'integer':
    case 'float':
    case 'double': {
      const n = numericTerm(raw, field.kind, name);
      if (n === undefined) return () => false;
      if (field.kind === 'integer') return (v) => Math.trunc(docNumber(v)) === n;
      if (field.kind === 'float') return (v) => Math.fround(docNumber(v)) === n;
      return (v) => docNumber(v) === n;
    }
    case 'date': {
      const { lo, hi } = dateTermInterval(raw, name);
      if (typeof lo === 'number' && typeof hi === 'number') {
        return (v) => {
          const t = toEpochMillis(v);
          return t >= lo && t <= hi;
        };
      }
      return null; // depends on now: handled by the caller through a range
    }
    case 'boolean': {
      const b = queryBoolean(raw, name);
      return (v) => docBoolean(v) === b;
    }
    case 'ip': {
      const net = typeof raw === 'string' ? ipKeyRange(raw) : undefined;
      if (net === undefined) throw queryError(kind, `'${String(raw)}' is not an IP string literal`);
      const [lo, hi] = net;
      return (v) => {
        const key = docIpKey(v);
        return key !== null && key >= lo && key <= hi;
      };
    }
    case 'object':
    case 'nested':
    case 'none':
      // an object is not a value field: OpenSearch finds no such field and matches nothing
      return () => false;
  }
}

function textTermLeaf(field: Field, q: string, caseInsensitive: boolean): LeafPred {
  const analyzer = field.analyzer;
  return (v) => {
    const text = textValue(v);
    if (text === undefined) return false;
    const { terms } = analyzedCached(analyzer, text);
    for (let i = 0; i < terms.length; i++) {
      const t = terms[i] as string;
      if ((caseInsensitive ? t.toLowerCase() : t) === q) return true;
    }
    return false;
  };
}

export function compileTerm(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'term');
  const { value, opts } = longForm(spec, ['value'], 'term');
  const raw = scalarQueryValue(value, 'term', name);
  const field = resolveField(ctx, name);
  if (field.kind === 'none') return MATCH_NONE;
  const pred = equalsPredicate(field, raw, opts.case_insensitive === true, 'term');
  if (pred === null) {
    // a date term relative to now: the same as a range from its rounded-down to rounded-up value
    return compileRangeOn(field, { gte: raw, lte: raw }, ctx);
  }
  const key = topLevelKey(field);
  const plainString = typeof raw === 'string' && (field.kind === 'keyword' || (field.kind === 'infer' && !IPISH_RE.test(raw) && !looksLikeDate(raw)));
  if (key !== null && opts.case_insensitive !== true && plainString) {
    return fastStringEquals(key, raw, pred);
  }
  if (key !== null && field.kind === 'boolean') {
    const b = queryBoolean(raw, name);
    const general = onValues(field, pred);
    return (d) => {
      const v = d[key];
      return typeof v === 'boolean' ? v === b : general(d);
    };
  }
  return onValues(field, pred);
}

export function compileTerms(body: unknown, ctx: Ctx): DocPredicate {
  const [name, values] = fieldEntry(body, 'terms', ['boost', '_name', 'value_type']);
  if (!Array.isArray(values)) {
    throw queryError('terms', `[${name}] terms lookup is not supported; give an array of values`);
  }
  const field = resolveField(ctx, name);
  if (field.kind === 'none' || values.length === 0) return MATCH_NONE;
  if (field.kind === 'keyword') {
    const strs = new Set<string>();
    const nums = new Set<number>();
    for (const v of values) {
      const s = keywordOf(scalarQueryValue(v, 'terms', name)) as string;
      strs.add(s);
      const n = canonicalNumber(s);
      if (n !== undefined) nums.add(n);
    }
    const leaf: LeafPred = (v) =>
      typeof v === 'string' ? strs.has(v) : typeof v === 'number' ? nums.has(v) : strs.has(keywordOf(v) ?? '\u0000none');
    const key = topLevelKey(field);
    if (key !== null && strs.size <= 16) {
      return fastStringIn(key, [...strs], [...nums], leaf);
    }
    return onValues(field, leaf);
  }
  if (field.kind === 'integer' || field.kind === 'double') {
    const nums = new Set<number>();
    for (const v of values) nums.add(queryNumber(scalarQueryValue(v, 'terms', name), name));
    const integer = field.kind === 'integer';
    return onValues(field, (v) => nums.has(integer ? Math.trunc(docNumber(v)) : docNumber(v)));
  }
  if (field.kind === 'text') {
    const strs = new Set(values.map((v) => keywordOf(scalarQueryValue(v, 'terms', name)) as string));
    return onTerms(field, (t) => strs.has(t));
  }
  // everything else: any of the equality predicates
  const preds = values.map((v) => {
    const raw = scalarQueryValue(v, 'terms', name);
    const p = equalsPredicate(field, raw, false, 'terms');
    return p === null ? compileRangeOn(field, { gte: raw, lte: raw }, ctx) : onValues(field, p);
  });
  return anyOf(preds);
}

