/**
 * `range` on each field kind: numbers (integers truncated, floats as 32-bit floats), keywords and
 * analyzed terms in term order, booleans, IP addresses in address order, dates (date-range.ts),
 * and, without a mapping, each document value's type picking numeric, date or string order.
 */
import { toEpochMillis } from '../dates.js';
import { booleanRangeTest } from '../match/booleans.js';
import { intervalTest } from '../match/interval.js';
import { ipRangeKeys } from '../match/ip.js';
import { keywordOf } from '../match/keyword.js';
import { numericBound } from '../match/numbers.js';
import { compareStrings } from '../match/patterns.js';
import { asObject, fieldEntry, scalarQueryValue } from '../match/query-body.js';
import { readRangeBounds, type RangeBounds } from '../match/range-bounds.js';
import { compileDateInterval, compileDateRange, type InstantTest } from './date-range.js';
import { resolveField, type Ctx, type Field } from './fields.js';
import { fastNumberWithin, topLevelKey } from './fast-paths.js';
import { docBoolean, docIpKey, docNumber, looksLikeDate, makeAnyValue, MATCH_NONE, onTerms, onValues, type DocPredicate, type LeafPred } from './values.js';

export function compileRange(body: unknown, ctx: Ctx): DocPredicate {
  const [name, spec] = fieldEntry(body, 'range');
  const opts = asObject(spec, 'range');
  const field = resolveField(ctx, name);
  return compileRangeOn(field, opts, ctx);
}

/** Whether a string lies between two strings in term order (undefined: open). */
function stringInterval(lo: string | undefined, loInc: boolean, hi: string | undefined, hiInc: boolean): (s: string) => boolean {
  return (s) => {
    if (lo !== undefined) {
      const c = compareStrings(s, lo);
      if (loInc ? c < 0 : c <= 0) return false;
    }
    if (hi !== undefined) {
      const c = compareStrings(s, hi);
      if (hiInc ? c > 0 : c >= 0) return false;
    }
    return true;
  };
}

export function compileRangeOn(field: Field, spec: Record<string, unknown>, ctx: Ctx): DocPredicate {
  const name = field.name;
  const b = readRangeBounds(spec, name);
  if (field.kind === 'none') return MATCH_NONE;
  const { loInclusive: loInc, hiInclusive: hiInc } = b;

  switch (field.kind) {
    case 'integer':
    case 'float':
    case 'double': {
      const conv = field.kind === 'float' ? Math.fround : field.kind === 'integer' ? Math.trunc : (x: number) => x;
      const lo = numericBound(b.lo, field.kind, name, -Infinity);
      const hi = numericBound(b.hi, field.kind, name, Infinity);
      const within = intervalTest(lo, loInc, hi, hiInc);
      const general = onValues(field, (v) => {
        const x = docNumber(v);
        return x === x && within(conv(x));
      });
      const key = topLevelKey(field);
      if (key === null) return general;
      return fastNumberWithin(key, lo, loInc, hi, hiInc, field.kind === 'double' ? null : conv, general);
    }
    case 'date':
      return compileDateRange(field, b, spec, ctx);
    case 'keyword':
    case 'text': {
      const lo = b.lo === undefined ? undefined : (keywordOf(scalarQueryValue(b.lo, 'range', name)) as string);
      const hi = b.hi === undefined ? undefined : (keywordOf(scalarQueryValue(b.hi, 'range', name)) as string);
      const within = stringInterval(lo, loInc, hi, hiInc);
      if (field.kind === 'text') return onTerms(field, within);
      return onValues(field, (v) => {
        const s = keywordOf(v);
        return s !== undefined && within(s);
      });
    }
    case 'boolean': {
      const within = booleanRangeTest(b, name);
      return onValues(field, (v) => {
        const x = docBoolean(v);
        return x !== undefined && within(x);
      });
    }
    case 'ip': {
      const { lo, hi } = ipRangeKeys(b);
      const within = intervalTest(lo, loInc, hi, hiInc);
      return onValues(field, (v) => {
        const key = docIpKey(v);
        return key !== null && within(key);
      });
    }
    case 'infer':
      return compileInferredRange(field, b, spec, ctx);
    default:
      // objects are not value fields: nothing matches
      return MATCH_NONE;
  }
}

function compileInferredRange(field: Field, b: RangeBounds, spec: Record<string, unknown>, ctx: Ctx): DocPredicate {
  const name = field.name;
  const { lo: loRaw, loInclusive: loInc, hi: hiRaw, hiInclusive: hiInc } = b;
  const bounds = [loRaw, hiRaw].filter((x) => x !== undefined);
  for (const x of bounds) scalarQueryValue(x, 'range', name);

  const isNumeric = (x: unknown) => typeof x === 'number' || (typeof x === 'string' && x.trim() !== '' && Number.isFinite(Number(x)));
  const allNumeric = bounds.every(isNumeric);
  const dateish = bounds.every((x) => x instanceof Date || typeof x === 'number' || (typeof x === 'string' && (looksLikeDate(x) || /^\d{4}$/.test(x) || isNumeric(x))));

  // numeric interpretation
  const numeric: ((x: number) => boolean) | null = allNumeric
    ? intervalTest(loRaw === undefined ? undefined : Number(loRaw), loInc, hiRaw === undefined ? undefined : Number(hiRaw), hiInc)
    : null;
  // date interpretation (numbers are epoch millis)
  let dateInterval: (() => InstantTest) | null = null;
  if (dateish) {
    try {
      dateInterval = compileDateInterval(b, spec, ctx, name);
    } catch {
      dateInterval = null;
    }
  }
  // string interpretation
  const lo = loRaw === undefined ? undefined : keywordOf(loRaw);
  const hi = hiRaw === undefined ? undefined : keywordOf(hiRaw);
  const stringWithin = stringInterval(lo, loInc, hi, hiInc);

  const any = makeAnyValue(field.segs);
  let dateWithin: (t: number) => boolean = () => false;
  const leaf: LeafPred = (v) => {
    if (v instanceof Date) return dateInterval !== null && dateWithin(v.getTime());
    if (typeof v === 'number') {
      if (numeric !== null) return numeric(v);
      return dateInterval !== null && dateWithin(Math.trunc(v));
    }
    if (typeof v === 'string') {
      if (numeric !== null && isNumeric(v)) return numeric(Number(v));
      if (dateInterval !== null && looksLikeDate(v)) {
        const t = toEpochMillis(v);
        return t === t && dateWithin(t);
      }
      return stringWithin(v);
    }
    return false;
  };
  return (d) => {
    if (dateInterval !== null) dateWithin = dateInterval().test;
    return any(d, leaf);
  };
}
