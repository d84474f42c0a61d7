/**
 * Reading values out of documents: every non-null leaf value at a field's path (through arrays
 * and objects, and dotted keys), and how a document value reads as a number, a boolean, a date
 * or an IP address under dynamic mapping, with small caches of analyzed text and parsed IPs.
 */
import { ipKey } from '../match/ip.js';
import { isPlainObject } from '../match/query-body.js';
import type { AnalyzedText } from '../text.js';
import type { Field } from './fields.js';

export type Doc = Record<string, unknown>;
export type DocPredicate = (doc: Doc) => boolean;
export type LeafPred = (v: unknown) => boolean;
/** Calls `pred` on every non-null leaf value at the field's path; true as soon as one matches. */
type AnyValue = (doc: Doc, pred: LeafPred) => boolean;

export const MATCH_ALL: DocPredicate = () => true;
export const MATCH_NONE: DocPredicate = () => false;

export function anyLeaf(v: unknown, pred: LeafPred): boolean {
  if (v === null || v === undefined) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (anyLeaf(v[i], pred)) return true;
    return false;
  }
  return pred(v);
}

export function makeAnyValue(segs: string[]): AnyValue {
  if (segs.length === 1) {
    const key = segs[0] as string;
    return (doc, pred) => {
      const v = doc[key];
      if (v === null || v === undefined) return false;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          const e = v[i];
          if (e === null || e === undefined) continue;
          if (Array.isArray(e) ? anyLeaf(e, pred) : pred(e)) return true;
        }
        return false;
      }
      return pred(v);
    };
  }
  // Longer paths walk objects and arrays of objects; a source may also hold a dotted key
  // (`{"image.tags": [...]}`), which OpenSearch reads as the same field.
  const rest = segs.map((_, i) => segs.slice(i).join('.'));
  const n = segs.length;
  const walk = (o: unknown, i: number, pred: LeafPred): boolean => {
    if (i === n) return anyLeaf(o, pred);
    if (o === null || typeof o !== 'object') return false;
    if (Array.isArray(o)) {
      for (let k = 0; k < o.length; k++) if (walk(o[k], i, pred)) return true;
      return false;
    }
    const obj = o as Record<string, unknown>;
    if (walk(obj[segs[i] as string], i + 1, pred)) return true;
    if (i < n - 1) {
      const dotted = rest[i] as string;
      if (dotted in obj) return anyLeaf(obj[dotted], pred);
    }
    return false;
  };
  return (doc, pred) => walk(doc, 0, pred);
}

/** Every object at a path (for `nested`): arrays of objects yield each object. */
export function makeObjects(segs: string[]): (doc: Doc, pred: (o: Doc) => boolean) => boolean {
  const any = makeAnyValue(segs);
  return (doc, pred) => any(doc, (v) => isPlainObject(v) && pred(v));
}

/** A number whose canonical JS string is `s`, so `n === x` ⇔ `String(x) === s` for numbers. */
export function canonicalNumber(s: string): number | undefined {
  if (s === '') return undefined;
  const n = Number(s);
  return String(n) === s ? n : undefined;
}

export function docNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') {
    if (v.trim() === '') return NaN;
    return Number(v);
  }
  if (typeof v === 'bigint') return Number(v);
  return NaN;
}

export function docBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (v === 'true') return true;
  if (v === 'false' || v === '') return false;
  return undefined;
}


export function looksLikeDate(s: string): boolean {
  return s.startsWith('now') || /^[+-]?\d{4}-\d{2}/.test(s);
}

const ipCache = new Map<string, string | null>();
/** The address key (see match/ip.ts) of a document value, or null when it is not an address. */
export function docIpKey(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  let key = ipCache.get(v);
  if (key === undefined) {
    key = ipKey(v) ?? null;
    if (ipCache.size >= 10_000) ipCache.clear();
    ipCache.set(v, key);
  }
  return key;
}

/** Text that looks like an address or a CIDR block (how a dynamically mapped value is read). */
export const IPISH_RE = /^(?:[0-9a-fA-F:]*:[0-9a-fA-F:.]*|\d{1,3}(?:\.\d{1,3}){3})(?:\/\d{1,3})?$/;

const analysisCache = new Map<(text: string) => AnalyzedText, Map<string, AnalyzedText>>();

export function analyzedCached(analyzer: (text: string) => AnalyzedText, text: string): AnalyzedText {
  let cache = analysisCache.get(analyzer);
  if (cache === undefined) {
    cache = new Map();
    analysisCache.set(analyzer, cache);
  }
  let a = cache.get(text);
  if (a === undefined) {
    a = analyzer(text);
    if (cache.size >= 2_000) cache.clear();
    cache.set(text, a);
  }
  return a;
}

export function textValue(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** Wraps a leaf predicate into a document predicate reading the field's values. */
export function onValues(field: Field, pred: LeafPred): DocPredicate {
  if (field.kind === 'none') return MATCH_NONE;
  const any = makeAnyValue(field.segs);
  return (d) => any(d, pred);
}

/** For text fields: a predicate over the analyzed terms of each value. */
export function onTerms(field: Field, pred: (term: string) => boolean): DocPredicate {
  const analyzer = field.analyzer;
  return onValues(field, (v) => {
    const text = textValue(v);
    if (text === undefined) return false;
    const { terms } = analyzedCached(analyzer, text);
    for (let i = 0; i < terms.length; i++) if (pred(terms[i] as string)) return true;
    return false;
  });
}

