/** Booleans in queries: only `true` and `false`, as values or text; ranges order false < true. */
import { intervalTest } from './interval.js';
import type { RangeBounds } from './range-bounds.js';

export function queryBoolean(v: unknown, field: string): boolean {
  if (v === true || v === 'true') return true;
  if (v === false || v === 'false') return false;
  throw new Error(`[${field}] Can't parse boolean value [${String(v)}], expected [true] or [false]`);
}

/** Whether a boolean value lies in a range of booleans. */
export function booleanRangeTest(range: RangeBounds, field: string): (b: boolean) => boolean {
  const lo = range.lo === undefined ? undefined : queryBoolean(range.lo, field) ? 1 : 0;
  const hi = range.hi === undefined ? undefined : queryBoolean(range.hi, field) ? 1 : 0;
  const within = intervalTest(lo, range.loInclusive, hi, range.hiInclusive);
  return (b) => within(b ? 1 : 0);
}
