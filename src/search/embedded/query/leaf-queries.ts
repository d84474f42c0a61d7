import {
  booleanRangeTest,
  compileWildcard,
  fuzzyMatcher,
  dateBoundAt,
  dateRangeInterval,
  dateTermInterval,
  fuzzyOptions,
  ipKey,
  ipKeyRange,
  ipRangeKeys,
  keywordOf,
  numericBound,
  numericTerm,
  queryAnalyzer,
  queryBoolean,
  queryError,
  readRangeBounds,
  requiredMatchTerms,
  scalarQueryValue,
  type NumericKind,
} from '../../../../grammar/index.js';
import { Bitmap } from '../postings/bitmap.js';
import type { NumericRange } from '../columns/columns.js';
import type { Field, FieldSet, LeafField, NumericField, TermField } from '../index/field-set.js';
import type { TermDictionary } from '../terms/term-dictionary.js';
import { atLeast } from '../terms/text-index.js';

/*
 * Field-level queries (term, terms, range, prefix, wildcard, fuzzy, match, match_phrase) as
 * bitmaps over one FieldSet. What a query value means for a field (keyword text, integers,
 * 32-bit floats, dates with OpenSearch's rounding, IP keys, fuzzy options, match arithmetic) is
 * the grammar's matching core (grammar/match/), shared with the DSL evaluator; here it is applied
 * to term dictionaries and columns.
 */

export interface LeafEnv {
  now: number;
  /** Number of documents of the FieldSet (bitset size). */
  space: number;
  /** Every document of the scope (live documents at the root). */
  universe: Bitmap;
  /** The scope's fields (stored records of its documents). */
  set: FieldSet;
}

export function boostOf(opts: Record<string, unknown>): number {
  return typeof opts.boost === 'number' ? opts.boost : 1;
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

/** Integer and long columns hold whole numbers; float columns hold 32-bit floats. */
function numericKind(f: NumericField): NumericKind {
  return f.type === 'float' ? 'float' : 'integer';
}

function objectError(kind: string, f: Field): Error {
  return queryError(kind, `field [${f.path}] is an object, not a value field`);
}

// ------------------------------------------------------------------ term, terms

/** Up to this many candidates, leaves test each candidate instead of reading whole lists. */
export const FEW_CANDIDATES = 512;

/** The few candidates holding `term` (undefined: not few), each looked up in its list. */
function fewIn(dict: TermDictionary, term: string, cand: Bitmap | undefined): Bitmap | undefined {
  if (cand === undefined || cand.size > FEW_CANDIDATES) return undefined;
  const list = dict.postingsOf(term);
  const out: number[] = [];
  if (list) cand.forEach((d) => list.has(d) && out.push(d));
  return Bitmap.fromSorted(out);
}

/** Documents whose field equals `raw` (term, and match on non-text fields). */
export function termBits(f: Field, raw: string | number | boolean, caseInsensitive: boolean, env: LeafEnv, cand?: Bitmap, kind = 'term'): Bitmap {
  switch (f.kind) {
    case 'object':
    case 'nested':
      throw objectError(kind, f);
    case 'keyword': {
      const q = keywordOf(raw)!;
      if (!caseInsensitive) return fewIn(f.dict, q, cand) ?? f.dict.lookup(q);
      const ql = q.toLowerCase();
      return ords(f.dict, f.dict.matchingOrds((t) => t.toLowerCase() === ql), env);
    }
    case 'text': {
      const q = keywordOf(raw)!;
      if (!caseInsensitive) return fewIn(f.text.dict, q, cand) ?? f.text.dict.lookup(q);
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
        const { lo, hi } = dateTermInterval(raw, f.path);
        return f.col.range({ lo: dateBoundAt(lo, env.now), loInclusive: true, hi: dateBoundAt(hi, env.now), hiInclusive: true }, cand);
      }
      const n = numericTerm(raw, numericKind(f), f.path);
      return n === undefined ? new Bitmap() : f.col.equal(n, cand);
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
      if (cand && cand.size <= FEW_CANDIDATES) {
        const lists = list.map((o) => dict.postingAt(o));
        const out: number[] = [];
        cand.forEach((d) => lists.some((l) => l.has(d)) && out.push(d));
        return Bitmap.fromSorted(out);
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
          const n = numericTerm(r, numericKind(f), f.path);
          if (n !== undefined) set.add(n);
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

export function rangeBits(f: Field, spec: Record<string, unknown>, env: LeafEnv, cand?: Bitmap): Bitmap {
  const b = readRangeBounds(spec, f.path);
  const { loInclusive: loInc, hiInclusive: hiInc } = b;
  switch (f.kind) {
    case 'numeric': {
      let r: NumericRange;
      if (f.type === 'date') {
        const { lo, hi } = dateRangeInterval(b, spec, f.path);
        r = { lo: dateBoundAt(lo, env.now), loInclusive: loInc, hi: dateBoundAt(hi, env.now), hiInclusive: hiInc };
      } else {
        const kind = numericKind(f);
        r = { lo: numericBound(b.lo, kind, f.path, -Infinity), loInclusive: loInc, hi: numericBound(b.hi, kind, f.path, Infinity), hiInclusive: hiInc };
      }
      return f.col.range(r, cand);
    }
    case 'keyword':
    case 'text': {
      const lo = b.lo === undefined ? undefined : keywordOf(scalarQueryValue(b.lo, 'range', f.path));
      const hi = b.hi === undefined ? undefined : keywordOf(scalarQueryValue(b.hi, 'range', f.path));
      const dict = dictOf(f);
      return ords(dict, dict.rangeOrds(lo, loInc, hi, hiInc), env);
    }
    case 'boolean': {
      const within = booleanRangeTest(b, f.path);
      const list: number[] = [];
      for (const value of [false, true]) {
        const o = f.dict.ordOf(String(value));
        if (o !== undefined && within(value)) list.push(o);
      }
      return ords(f.dict, list, env);
    }
    case 'ip': {
      const { lo, hi } = ipRangeKeys(b);
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

/**
 * The candidates holding a term of keyword field `f` that passes `test`, read from their stored
 * records: for a few candidates (a narrow query, the documents a write changed) when the
 * pattern's union is not kept, instead of expanding the pattern over the dictionary and merging
 * every matching list. Undefined when that does not apply, or when a candidate holds terms its
 * record does not list (values stored whole, beside the record).
 */
function fewHolding(f: Field, key: string, test: (term: string) => boolean, env: LeafEnv, cand: Bitmap | undefined): Bitmap | undefined {
  if (f.kind !== 'keyword' || cand === undefined || cand.size > FEW_CANDIDATES || f.dict.keptUnion(key) !== undefined) return undefined;
  const dict = f.dict;
  const out: number[] = [];
  let complete = true;
  cand.forEach((d) => {
    if (!complete || !dict.docs.has(d)) return;
    const ords = env.set.storedOrds(d, f);
    if (ords === null) complete = false;
    else if (ords.some((o) => test(dict.termAt(o)))) out.push(d);
  });
  return complete ? Bitmap.fromSorted(out) : undefined;
}

/** Whether a term passes a prefix or wildcard query's pattern (the term itself, not a document). */
export function patternTest(kind: 'prefix' | 'wildcard', pattern: string, caseInsensitive: boolean): (term: string) => boolean {
  if (kind === 'wildcard') return compileWildcard(pattern, caseInsensitive);
  const lower = pattern.toLowerCase();
  return caseInsensitive ? (t: string) => t.toLowerCase().startsWith(lower) : (t: string) => t.startsWith(pattern);
}

export function patternBits(f: Field, kind: 'prefix' | 'wildcard', pattern: string, caseInsensitive: boolean, env: LeafEnv, cand?: Bitmap): Bitmap {
  const dict = stringDict(f, kind);
  const key = `${kind}:${caseInsensitive ? 'i' : 's'}:${pattern}`;
  const test = patternTest(kind, pattern, caseInsensitive);
  const few = fewHolding(f, key, test, env, cand);
  if (few) return few;
  const expand = () => (kind === 'prefix' ? dict.prefixOrds(pattern, caseInsensitive) : dict.wildcardOrds(pattern, caseInsensitive));
  return dict.cachedUnion(key, expand, env.space);
}

export function fuzzyBits(f: Field, q: string, opts: Record<string, unknown>, env: LeafEnv, cand?: Bitmap): Bitmap {
  const dict = stringDict(f, 'fuzzy');
  const fuzzy = fuzzyOptions(q, opts, 'transpositions');
  const key = `fuzzy:${fuzzy.maxEdits}:${fuzzy.prefixLength}:${fuzzy.transpositions ? 't' : 'n'}:${q}`;
  const few = fewHolding(f, key, fuzzyMatcher(q, fuzzy), env, cand);
  if (few) return few;
  return dict.cachedUnion(key, () => dict.fuzzyOrds(q, fuzzy), env.space);
}

// ------------------------------------------------------------------ match, match_phrase

export function matchBits(f: Field, raw: string | number | boolean, opts: Record<string, unknown>, env: LeafEnv, cand?: Bitmap): Bitmap {
  if (f.kind !== 'text') return termBits(f, raw, false, env, cand, 'match');
  const terms = queryAnalyzer(opts, f.text.analyze)(keywordOf(raw)!).terms;
  if (terms.length === 0) return opts.zero_terms_query === 'all' ? env.universe : new Bitmap();
  const required = requiredMatchTerms(terms.length, opts);
  if (required > terms.length) return new Bitmap();
  const dict = f.text.dict;
  const lists = terms.map((t) =>
    opts.fuzziness === undefined ? dict.lookup(t) : ords(dict, dict.fuzzyOrds(t, fuzzyOptions(t, opts, 'fuzzy_transpositions')), env),
  );
  if (required === 1) {
    let out = lists[0]!;
    for (let i = 1; i < lists.length; i++) out = out.or(lists[i]!);
    return out;
  }
  return atLeast(lists, required);
}

export function phraseBits(f: Field, raw: string | number | boolean, opts: Record<string, unknown>, env: LeafEnv, cand?: Bitmap): Bitmap {
  if (f.kind !== 'text') return termBits(f, raw, false, env, cand, 'match_phrase');
  const q = queryAnalyzer(opts, f.text.analyze)(keywordOf(raw)!);
  if (q.terms.length === 0) return opts.zero_terms_query === 'all' ? env.universe : new Bitmap();
  const slop = typeof opts.slop === 'number' ? opts.slop : 0;
  return f.text.phrase(q, slop, cand);
}
