import { minimumShouldMatch, analyzerFor, fuzzyMaxEdits, parseDateBound, parseTimeZone } from '../../../grammar/index.js';
import { Bitmap } from './bitmap.js';
import type { NumericRange } from './columns.js';
import type { Field, LeafField, TermField } from './field-set.js';
import { ipKey, ipKeyRange } from './ip.js';
import type { TermDictionary } from './keyword-index.js';
import { atLeast } from './text-index.js';

/*
 * Field-level queries (term, terms, range, prefix, wildcard, fuzzy, match, match_phrase) as
 * bitmaps over one FieldSet, with the same value semantics as the DSL evaluator: keyword values
 * compare as strings (numbers by their canonical text), integer fields truncate, float fields
 * compare as 32-bit floats, dates as instants with OpenSearch's rounding, text fields through
 * their analyzer.
 */

export interface LeafEnv {
  now: number;
  /** Number of documents of the FieldSet (bitset size). */
  space: number;
  /** Every document of the scope (live documents at the root). */
  universe: () => Bitmap;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

export function queryError(kind: string, message: string): Error {
  return new Error(`[${kind}] ${message}`);
}

export function asObject(v: unknown, kind: string): Record<string, unknown> {
  if (!isPlainObject(v)) throw queryError(kind, `expected an object, got ${JSON.stringify(v)}`);
  return v;
}

/** The single `{field: spec}` entry of a field-level query. */
export function fieldEntry(body: unknown, kind: string, options: readonly string[] = ['boost', '_name']): [string, unknown] {
  const obj = asObject(body, kind);
  const keys = Object.keys(obj).filter((k) => !options.includes(k));
  if (keys.length !== 1) {
    throw queryError(kind, `query expects exactly one field, got ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  }
  return [keys[0]!, obj[keys[0]!]];
}

/** Short form (`{f: v}`) or long form (`{f: {value: v, ...options}}`). */
export function longForm(spec: unknown, valueKeys: readonly string[], kind: string): { value: unknown; opts: Record<string, unknown> } {
  if (isPlainObject(spec)) {
    for (const k of valueKeys) if (spec[k] !== undefined) return { value: spec[k], opts: spec };
    throw queryError(kind, `missing [${valueKeys[0]}] in ${JSON.stringify(spec)}`);
  }
  return { value: spec, opts: {} };
}

export function boostOf(opts: Record<string, unknown>): number {
  return typeof opts.boost === 'number' ? opts.boost : 1;
}

export function keywordOf(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return v instanceof Date ? v.toISOString() : undefined;
  }
}

export function scalarQueryValue(v: unknown, kind: string, field: string): string | number | boolean {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) throw queryError(kind, `[${field}] query does not support an array of values`);
  throw queryError(kind, `[${field}] unsupported value ${JSON.stringify(v)}`);
}

function queryNumber(v: unknown, field: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new Error(`[${field}] cannot parse number from [${String(v)}]`);
  return n;
}

function queryBoolean(v: unknown, field: string): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new Error(`[${field}] Can't parse boolean value [${String(v)}], expected [true] or [false]`);
}

function dictOf(f: LeafField): TermDictionary {
  return f.kind === 'text' ? f.text.dict : (f as TermField).dict;
}

function ords(dict: TermDictionary, list: number[], env: LeafEnv): Bitmap {
  return dict.union(list, env.space);
}

function ipOrds(dict: TermDictionary, lo: string | undefined, loInc: boolean, hi: string | undefined, hiInc: boolean): number[] {
  return dict.keyRangeOrds((t) => ipKey(t) ?? '', lo, loInc, hi, hiInc);
}

function objectError(kind: string, f: Field): Error {
  return queryError(kind, `field [${f.path}] is an object, not a value field`);
}

// ------------------------------------------------------------------ term, terms

/** Documents whose field equals `raw` (term, and match on non-text fields). */
export function termBits(f: Field, raw: string | number | boolean, caseInsensitive: boolean, env: LeafEnv, cand?: Bitmap, kind = 'term'): Bitmap {
  switch (f.kind) {
    case 'object':
    case 'nested':
      throw objectError(kind, f);
    case 'keyword': {
      const q = keywordOf(raw)!;
      if (!caseInsensitive) return f.dict.lookup(q);
      const ql = q.toLowerCase();
      return ords(f.dict, f.dict.matchingOrds((t) => t.toLowerCase() === ql), env);
    }
    case 'text': {
      const q = keywordOf(raw)!;
      if (!caseInsensitive) return f.text.dict.lookup(q);
      const ql = q.toLowerCase();
      return ords(f.text.dict, f.text.dict.matchingOrds((t) => t.toLowerCase() === ql), env);
    }
    case 'boolean':
      return f.dict.lookup(queryBoolean(raw, f.path) ? 'true' : 'false');
    case 'ip': {
      const range = typeof raw === 'string' ? ipKeyRange(raw) : undefined;
      if (!range) throw queryError(kind, `'${String(raw)}' is not an IP string literal`);
      return ords(f.dict, ipOrds(f.dict, range[0], true, range[1], true), env);
    }
    case 'numeric': {
      if (f.type === 'date') {
        const lo = parseDateBound(raw, false, env.now);
        const hi = parseDateBound(raw, true, env.now);
        return f.col.range({ lo, loInclusive: true, hi, hiInclusive: true }, cand);
      }
      const n = queryNumber(raw, f.path);
      if (f.type === 'float') return f.col.equal(Math.fround(n), cand);
      if (!Number.isInteger(n)) return new Bitmap();
      return f.col.equal(n, cand);
    }
  }
}

export function termsBits(f: Field, values: unknown, env: LeafEnv, cand?: Bitmap): Bitmap {
  if (!Array.isArray(values)) throw queryError('terms', `[${f.path}] terms lookup is not supported; give an array of values`);
  if (values.length === 0) return new Bitmap();
  const raws = values.map((v) => scalarQueryValue(v, 'terms', f.path));
  switch (f.kind) {
    case 'object':
    case 'nested':
      throw objectError('terms', f);
    case 'keyword':
    case 'text': {
      const dict = dictOf(f);
      const list: number[] = [];
      for (const r of raws) {
        const o = dict.ordOf(keywordOf(r)!);
        if (o !== undefined) list.push(o);
      }
      if (cand && list.length > 1 && cand.size * 64 < env.space) {
        // few candidates (a filter's hidden tags under a narrow query): intersect each list
        // with them rather than building the whole union
        let out = new Bitmap();
        for (const o of list) out = out.or(cand.and(dict.postingAt(o).toBitmap()));
        return out;
      }
      return ords(dict, list, env);
    }
    case 'numeric':
      if (f.type !== 'date' && !f.col.terms) {
        const set = new Set<number>();
        for (const r of raws) {
          const n = queryNumber(r, f.path);
          if (f.type === 'float') set.add(Math.fround(n));
          else if (Number.isInteger(n)) set.add(n);
        }
        return f.col.inSet(set, cand);
      }
      return unionOfTerms(f, raws, env, cand);
    default:
      return unionOfTerms(f, raws, env, cand);
  }
}

/** Terms as a union of term queries (dates: each value a rounded interval; booleans; ips). */
function unionOfTerms(f: Field, raws: (string | number | boolean)[], env: LeafEnv, cand?: Bitmap): Bitmap {
  let out: Bitmap | null = null;
  for (const r of raws) {
    const b = termBits(f, r, false, env, cand, 'terms');
    out = out ? out.or(b) : b;
  }
  return out ?? new Bitmap();
}

// ------------------------------------------------------------------ range

interface Bounds {
  gt?: unknown;
  gte?: unknown;
  lt?: unknown;
  lte?: unknown;
}

const RANGE_OPTIONS = new Set([
  'gt', 'gte', 'lt', 'lte', 'from', 'to', 'include_lower', 'include_upper', 'format', 'time_zone',
  'relation', 'boost', '_name',
]);

function normalizeBounds(spec: Record<string, unknown>, name: string): Bounds {
  for (const k of Object.keys(spec)) {
    if (!RANGE_OPTIONS.has(k)) throw queryError('range', `[${name}] query does not support [${k}]`);
  }
  const b: Bounds = {};
  const set = (k: keyof Bounds, v: unknown) => {
    if (v !== undefined && v !== null) b[k] = v;
  };
  set('gt', spec.gt);
  set('gte', spec.gte);
  set('lt', spec.lt);
  set('lte', spec.lte);
  if (spec.from !== undefined && spec.from !== null) set(spec.include_lower === false ? 'gt' : 'gte', spec.from);
  if (spec.to !== undefined && spec.to !== null) set(spec.include_upper === false ? 'lt' : 'lte', spec.to);
  return b;
}

export function rangeBits(f: Field, spec: Record<string, unknown>, env: LeafEnv, cand?: Bitmap): Bitmap {
  const b = normalizeBounds(spec, f.path);
  const loRaw = b.gt ?? b.gte;
  const hiRaw = b.lt ?? b.lte;
  const loInc = b.gt === undefined;
  const hiInc = b.lt === undefined;
  switch (f.kind) {
    case 'numeric': {
      let r: NumericRange;
      if (f.type === 'date') {
        const opts = {
          tzOffset: parseTimeZone(spec.time_zone),
          epochSecond: typeof spec.format === 'string' && spec.format.split('||').includes('epoch_second') && !spec.format.split('||').includes('epoch_millis'),
        };
        r = {
          lo: loRaw === undefined ? -Infinity : parseDateBound(loRaw, !loInc, env.now, opts),
          loInclusive: loInc,
          hi: hiRaw === undefined ? Infinity : parseDateBound(hiRaw, hiInc, env.now, opts),
          hiInclusive: hiInc,
        };
      } else {
        const conv = f.type === 'float' ? Math.fround : (x: number) => x;
        r = {
          lo: loRaw === undefined ? -Infinity : conv(queryNumber(loRaw, f.path)),
          loInclusive: loInc,
          hi: hiRaw === undefined ? Infinity : conv(queryNumber(hiRaw, f.path)),
          hiInclusive: hiInc,
        };
      }
      return f.col.range(r, cand);
    }
    case 'keyword':
    case 'text': {
      const lo = loRaw === undefined ? undefined : keywordOf(scalarQueryValue(loRaw, 'range', f.path));
      const hi = hiRaw === undefined ? undefined : keywordOf(scalarQueryValue(hiRaw, 'range', f.path));
      const dict = dictOf(f);
      return ords(dict, dict.rangeOrds(lo, loInc, hi, hiInc), env);
    }
    case 'boolean': {
      const lo = loRaw === undefined ? -Infinity : queryBoolean(loRaw, f.path) ? 1 : 0;
      const hi = hiRaw === undefined ? Infinity : queryBoolean(hiRaw, f.path) ? 1 : 0;
      const within = (x: number) => (loInc ? x >= lo : x > lo) && (hiInc ? x <= hi : x < hi);
      const list: number[] = [];
      for (const [term, x] of [['false', 0], ['true', 1]] as const) {
        const o = f.dict.ordOf(term);
        if (o !== undefined && within(x)) list.push(o);
      }
      return ords(f.dict, list, env);
    }
    case 'ip': {
      const key = (raw: unknown) => {
        const k = typeof raw === 'string' ? ipKey(raw) : undefined;
        if (k === undefined) throw queryError('range', `'${String(raw)}' is not an IP string literal`);
        return k;
      };
      const lo = loRaw === undefined ? undefined : key(loRaw);
      const hi = hiRaw === undefined ? undefined : key(hiRaw);
      return ords(f.dict, ipOrds(f.dict, lo, loInc, hi, hiInc), env);
    }
    default:
      throw queryError('range', `field [${f.path}] of type ${f.kind} does not support range queries`);
  }
}

// ------------------------------------------------------------------ prefix, wildcard, fuzzy

function stringDict(f: Field, kind: string): TermDictionary {
  if (f.kind === 'keyword') return f.dict;
  if (f.kind === 'text') return f.text.dict;
  const type = f.kind === 'numeric' ? f.type : f.kind;
  throw queryError(kind, `can only be used on keyword and text fields, not on [${f.path}] of type ${type}`);
}

export function patternBits(f: Field, kind: 'prefix' | 'wildcard', pattern: string, caseInsensitive: boolean, env: LeafEnv): Bitmap {
  const dict = stringDict(f, kind);
  const expand = () => (kind === 'prefix' ? dict.prefixOrds(pattern, caseInsensitive) : dict.wildcardOrds(pattern, caseInsensitive));
  return dict.cachedUnion(`${kind}:${caseInsensitive ? 'i' : 's'}:${pattern}`, expand, env.space);
}

export function fuzzyBits(f: Field, q: string, opts: Record<string, unknown>, env: LeafEnv): Bitmap {
  const dict = stringDict(f, 'fuzzy');
  const maxEdits = fuzzyMaxEdits(q, (opts.fuzziness ?? 'AUTO') as number | string);
  const prefixLength = typeof opts.prefix_length === 'number' ? opts.prefix_length : 0;
  const transpositions = opts.transpositions !== false;
  const key = `fuzzy:${maxEdits}:${prefixLength}:${transpositions ? 't' : 'n'}:${q}`;
  return dict.cachedUnion(key, () => dict.fuzzyOrds(q, maxEdits, prefixLength, transpositions), env.space);
}

// ------------------------------------------------------------------ match, match_phrase

export function matchBits(f: Field, raw: string | number | boolean, opts: Record<string, unknown>, env: LeafEnv, cand?: Bitmap): Bitmap {
  if (f.kind !== 'text') return termBits(f, raw, false, env, cand, 'match');
  const analyzer = typeof opts.analyzer === 'string' ? analyzerFor(opts.analyzer) : f.text.analyze;
  const terms = analyzer(keywordOf(raw)!).terms;
  if (terms.length === 0) return opts.zero_terms_query === 'all' ? env.universe() : new Bitmap();
  const operator = typeof opts.operator === 'string' ? opts.operator.toLowerCase() : 'or';
  let required = operator === 'and' ? terms.length : 1;
  if (opts.minimum_should_match !== undefined && operator !== 'and') {
    required = minimumShouldMatch(terms.length, opts.minimum_should_match as number | string);
    if (required === 0) required = 1;
  }
  if (required > terms.length) return new Bitmap();
  const dict = f.text.dict;
  const lists = terms.map((t) => {
    if (opts.fuzziness === undefined) return dict.lookup(t);
    const edits = fuzzyMaxEdits(t, opts.fuzziness as number | string);
    const prefixLength = typeof opts.prefix_length === 'number' ? opts.prefix_length : 0;
    return ords(dict, dict.fuzzyOrds(t, edits, prefixLength, opts.fuzzy_transpositions !== false), env);
  });
  if (required === 1) {
    let out = lists[0]!;
    for (let i = 1; i < lists.length; i++) out = out.or(lists[i]!);
    return out;
  }
  return atLeast(lists, required);
}

export function phraseBits(f: Field, raw: string | number | boolean, opts: Record<string, unknown>, env: LeafEnv, cand?: Bitmap): Bitmap {
  if (f.kind !== 'text') return termBits(f, raw, false, env, cand, 'match_phrase');
  const analyzer = typeof opts.analyzer === 'string' ? analyzerFor(opts.analyzer) : f.text.analyze;
  const q = analyzer(keywordOf(raw)!);
  if (q.terms.length === 0) return opts.zero_terms_query === 'all' ? env.universe() : new Bitmap();
  const slop = typeof opts.slop === 'number' ? opts.slop : 0;
  return f.text.phrase(q, slop, cand);
}
