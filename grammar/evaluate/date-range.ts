/**
 * `range` on a date field in the evaluator: the interval comes from match/date-range.ts (with
 * OpenSearch's rounding); here it is tested against document values, with a fast path that
 * compares canonical UTC ISO strings without parsing them.
 */
import { toEpochMillis } from '../dates.js';
import { dateBoundAt, dateRangeInterval } from '../match/date-range.js';
import { intervalTest } from '../match/interval.js';
import type { RangeBounds } from '../match/range-bounds.js';
import type { Ctx, Field } from './fields.js';
import { makeAnyValue, type DocPredicate, type LeafPred } from './values.js';

/** A resolved date interval: a test on instants, and a fast test on canonical ISO strings. */
export interface InstantTest {
  test: (t: number) => boolean;
  /** 1 or 0 for an ISO string in UTC `yyyy-MM-ddTHH:mm:ss(.SSS)Z` form, -1 for other shapes. */
  testIso: (s: string) => number;
}

/** Canonical strings of an instant for ordering ISO strings: 24-char form, 20-char form, ms. */
function isoKeys(t: number): { k24: string; k20: string; ms: number } | null {
  if (!Number.isFinite(t)) return null;
  const d = new Date(t);
  const y = d.getUTCFullYear();
  if (y < 0 || y > 9999) return null;
  const k24 = d.toISOString();
  return { k24, k20: k24.slice(0, 19) + 'Z', ms: d.getUTCMilliseconds() };
}

/** Compares a canonical UTC ISO string with an instant's keys: <0, 0, >0, or NaN (other shape). */
function compareIso(s: string, k: { k24: string; k20: string; ms: number }): number {
  if (s.charCodeAt(10) !== 84 /* T */ || s.charCodeAt(4) !== 45 || s.charCodeAt(13) !== 58) return NaN;
  const n = s.length;
  if (n === 24) {
    if (s.charCodeAt(23) !== 90 /* Z */ || s.charCodeAt(19) !== 46 /* . */) return NaN;
    return s === k.k24 ? 0 : s < k.k24 ? -1 : 1;
  }
  if (n === 20) {
    if (s.charCodeAt(19) !== 90) return NaN;
    return s === k.k20 ? -k.ms : s < k.k20 ? -1 : 1;
  }
  return NaN;
}

function makeInstantTest(lo: number, loInc: boolean, hi: number, hiInc: boolean): InstantTest {
  const test = intervalTest(lo, loInc, hi, hiInc);
  const loKeys = lo === -Infinity ? null : isoKeys(lo);
  const hiKeys = hi === Infinity ? null : isoKeys(hi);
  const usable = (lo === -Infinity || loKeys !== null) && (hi === Infinity || hiKeys !== null);
  const testIso = (s: string): number => {
    if (!usable) return -1;
    if (loKeys !== null) {
      const c = compareIso(s, loKeys);
      if (c !== c) return -1;
      if (loInc ? c < 0 : c <= 0) return 0;
    }
    if (hiKeys !== null) {
      const c = compareIso(s, hiKeys);
      if (c !== c) return -1;
      if (hiInc ? c > 0 : c >= 0) return 0;
    }
    // without bounds compareIso never ran: still make sure the shape is one we understand
    if (loKeys === null && hiKeys === null) return -1;
    return 1;
  };
  return { test, testIso };
}

/**
 * The interval of a date range with OpenSearch rounding: `gte`/`lt` round date math down,
 * `gt`/`lte` round up. `current()` returns the interval for the current clock (bounds on `now`
 * are re-resolved when the clock moves; constant bounds give one fixed interval).
 */
/**
 * The interval of a date range: `current()` returns it for the current clock (bounds on `now`
 * are re-resolved when the clock moves; constant bounds give one fixed interval).
 */
export function compileDateInterval(b: RangeBounds, spec: Record<string, unknown>, ctx: Ctx, name: string): () => InstantTest {
  const { lo, loInclusive, hi, hiInclusive } = dateRangeInterval(b, spec, name);
  if (typeof lo === 'number' && typeof hi === 'number') {
    const fixed = makeInstantTest(lo, loInclusive, hi, hiInclusive);
    return () => fixed;
  }
  const nowFn = ctx.now;
  let lastNow = NaN;
  let current = makeInstantTest(0, true, -1, true);
  return () => {
    const now = nowFn();
    if (now !== lastNow) {
      lastNow = now;
      current = makeInstantTest(dateBoundAt(lo, now), loInclusive, dateBoundAt(hi, now), hiInclusive);
    }
    return current;
  };
}

export function compileDateRange(field: Field, b: RangeBounds, spec: Record<string, unknown>, ctx: Ctx): DocPredicate {
  const current = compileDateInterval(b, spec, ctx, field.name);
  const any = makeAnyValue(field.segs);
  let interval = current();
  const leaf: LeafPred = (v) => {
    if (typeof v === 'string') {
      const r = interval.testIso(v);
      if (r >= 0) return r === 1;
    }
    const t = toEpochMillis(v);
    return t === t && interval.test(t);
  };
  return (d) => {
    interval = current();
    return any(d, leaf);
  };
}

