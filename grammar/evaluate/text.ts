/**
 * Queries on strings and text: `prefix`, `wildcard` and `fuzzy` test keyword values and the
 * analyzed terms of text values; `match` counts query terms found, `match_phrase` checks their
 * positions (within `slop` moves). On other field kinds, match queries are term queries.
 */
import { fuzzyMatcher, fuzzyOptions } from '../match/fuzzy.js';
import { keywordOf } from '../match/keyword.js';
import { queryAnalyzer, requiredMatchTerms } from '../match/match-query.js';
import { compileWildcard } from '../match/patterns.js';
import { sloppyPhraseMatches } from '../match/phrase.js';
import { fieldEntry, longForm, queryError, scalarQueryValue } from '../match/query-body.js';
import type { AnalyzedText } from '../text.js';
import { resolveField, type Ctx, type Field } from './fields.js';
import { compileRangeOn } from './range.js';
import { equalsPredicate } from './term.js';
import { analyzedCached, makeAnyValue, MATCH_ALL, MATCH_NONE, onTerms, onValues, textValue, type DocPredicate } from './values.js';

export function compilePrefixLike(body: unknown, ctx: Ctx, kind: 'prefix' | 'wildcard'): DocPredicate {
  const [name, spec] = fieldEntry(body, kind);
  const { value, opts } = longForm(spec, kind === 'wildcard' ? ['value', 'wildcard'] : ['value'], kind);
  const pattern = keywordOf(scalarQueryValue(value, kind, name)) as string;
  const ci = opts.case_insensitive === true;
  const field = resolveField(ctx, name);
  let test: (s: string) => boolean;
  if (kind === 'prefix') {
    const p = ci ? pattern.toLowerCase() : pattern;
    test = ci ? (s) => s.toLowerCase().startsWith(p) : (s) => s.startsWith(p);
  } else {
    test = compileWildcard(pattern, ci);
  }
  return compileStringMatcher(field, test, kind);
}

/** Runs a string test on keyword values, on analyzed terms of text values. */
function compileStringMatcher(field: Field, test: (s: string) => boolean, kind: string): DocPredicate {
  switch (field.kind) {
    case 'none':
    case 'object':
    case 'nested':
      return MATCH_NONE;
    case 'text':
      return onTerms(field, test);
    case 'keyword':
    case 'infer':
      return onValues(field, (v) => {
        const s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? keywordOf(v) : undefined;
        return s !== undefined && test(s);
      });
    default:
      throw queryError(kind, `can only be used on keyword and text fields, not on [${field.name}] of type ${field.kind}`);
  }
}

export function compileFuzzy(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'fuzzy');
  const { value, opts } = longForm(spec, ['value'], 'fuzzy');
  const q = keywordOf(scalarQueryValue(value, 'fuzzy', name)) as string;
  const matcher = fuzzyMatcher(q, fuzzyOptions(q, opts, 'transpositions'));
  const field = resolveField(ctx, name);
  return compileStringMatcher(field, matcher, 'fuzzy');
}

const MATCH_OPTIONS = ['query'];

export function compileMatch(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'match');
  const { value, opts } = longForm(spec, MATCH_OPTIONS, 'match');
  const raw = scalarQueryValue(value, 'match', name);
  const field = resolveField(ctx, name);
  if (field.kind === 'none') return MATCH_NONE;
  if (field.kind !== 'text' && field.kind !== 'infer') {
    // non-text fields: the whole query value is one term
    const p = equalsPredicate(field, raw, false, 'match');
    return p === null ? compileRangeOn(field, { gte: raw, lte: raw }, ctx) : onValues(field, p);
  }
  const queryTerms = queryAnalyzer(opts, field.analyzer)(keywordOf(raw) as string).terms;
  if (queryTerms.length === 0) return opts.zero_terms_query === 'all' ? MATCH_ALL : MATCH_NONE;
  const required = requiredMatchTerms(queryTerms.length, opts);
  if (required > queryTerms.length) return MATCH_NONE;
  const termTests: Array<(t: string) => boolean> = queryTerms.map((qt) =>
    opts.fuzziness === undefined ? (t: string) => t === qt : fuzzyMatcher(qt, fuzzyOptions(qt, opts, 'fuzzy_transpositions')),
  );
  const fieldAnalyzer = field.analyzer;
  const any = makeAnyValue(field.segs);
  if (required === 1) {
    return (d) =>
      any(d, (v) => {
        const text = textValue(v);
        if (text === undefined) return false;
        const { terms } = analyzedCached(fieldAnalyzer, text);
        for (const t of terms) for (const test of termTests) if (test(t)) return true;
        return false;
      });
  }
  // several query terms required: count the query terms present anywhere in the field
  return (d) => {
    const found = new Array<boolean>(termTests.length).fill(false);
    let count = 0;
    any(d, (v) => {
      const text = textValue(v);
      if (text === undefined) return false;
      const { terms } = analyzedCached(fieldAnalyzer, text);
      for (const t of terms) {
        for (let k = 0; k < termTests.length; k++) {
          if (!found[k] && (termTests[k] as (t: string) => boolean)(t)) {
            found[k] = true;
            count++;
          }
        }
      }
      return count >= required;
    });
    return count >= required;
  };
}

/** Whether the query terms occur at their relative positions (within `slop` moves) in `doc`. */
function phraseMatches(doc: AnalyzedText, qTerms: string[], qPos: number[], slop: number): boolean {
  const n = doc.terms.length;
  const m = qTerms.length;
  if (n === 0) return false;
  if (slop === 0) {
    // position → term of the document (positions are strictly increasing)
    const first = qTerms[0] as string;
    for (let i = 0; i < n; i++) {
      if (doc.terms[i] !== first) continue;
      const base = (doc.positions[i] as number) - (qPos[0] as number);
      let ok = true;
      let j = i;
      for (let k = 1; k < m && ok; k++) {
        const want = base + (qPos[k] as number);
        while (j < n && (doc.positions[j] as number) < want) j++;
        ok = j < n && doc.positions[j] === want && doc.terms[j] === qTerms[k];
      }
      if (ok) return true;
    }
    return false;
  }
  // sloppy: some choice of distinct occurrences whose offsets (docPos − queryPos) span ≤ slop
  const occ: number[][] = qTerms.map((t) => {
    const list: number[] = [];
    for (let i = 0; i < n; i++) if (doc.terms[i] === t) list.push(doc.positions[i] as number);
    return list;
  });
  return sloppyPhraseMatches(occ, qPos, slop);
}

export function compileMatchPhrase(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'match_phrase');
  const { value, opts } = longForm(spec, MATCH_OPTIONS, 'match_phrase');
  const raw = scalarQueryValue(value, 'match_phrase', name);
  const field = resolveField(ctx, name);
  if (field.kind === 'none') return MATCH_NONE;
  if (field.kind !== 'text' && field.kind !== 'infer') {
    const p = equalsPredicate(field, raw, false, 'match_phrase');
    return p === null ? compileRangeOn(field, { gte: raw, lte: raw }, ctx) : onValues(field, p);
  }
  const q = queryAnalyzer(opts, field.analyzer)(keywordOf(raw) as string);
  if (q.terms.length === 0) return opts.zero_terms_query === 'all' ? MATCH_ALL : MATCH_NONE;
  const slop = typeof opts.slop === 'number' ? opts.slop : 0;
  const qTerms = q.terms;
  const qPos = q.positions;
  const fieldAnalyzer = field.analyzer;
  if (qTerms.length === 1) {
    const only = qTerms[0] as string;
    return onTerms(field, (t) => t === only);
  }
  return onValues(field, (v) => {
    const text = textValue(v);
    return text !== undefined && phraseMatches(analyzedCached(fieldAnalyzer, text), qTerms, qPos, slop);
  });
}

