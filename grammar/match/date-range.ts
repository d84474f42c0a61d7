/**
 * Dates in term and range queries, with OpenSearch's rounding: a term on a date is the interval
 * from its value rounded down to its value rounded up (`2024-01-05` is the whole day); in a range,
 * `gte` and `lt` round date math down, `gt` and `lte` round it up. A bound on `now` is a function
 * of the clock, so a compiled query moves with it.
 */
import { compileDateBound, parseTimeZone, type DateBoundOptions } from '../dates.js';
import type { RangeBounds } from './range-bounds.js';

export type DateBound = number | ((now: number) => number);

export interface DateInterval {
  lo: DateBound;
  loInclusive: boolean;
  hi: DateBound;
  hiInclusive: boolean;
}

/** The bound at a given clock. */
export function dateBoundAt(bound: DateBound, now: number): number {
  return typeof bound === 'number' ? bound : bound(now);
}

/** `format` (only epoch_second changes how numbers read) and `time_zone` of a date range. */
function dateOptions(spec: Record<string, unknown>): DateBoundOptions {
  const tzOffset = parseTimeZone(spec.time_zone);
  const format = spec.format;
  let epochSecond = false;
  if (format !== undefined) {
    if (typeof format !== 'string') throw new Error(`Invalid date format: ${String(format)}`);
    const names = format.split('||');
    epochSecond = names.includes('epoch_second') && !names.includes('epoch_millis');
  }
  return { tzOffset, epochSecond };
}

/** The instants a term query on a date field matches (both ends inclusive). */
export function dateTermInterval(raw: unknown, field: string): DateInterval {
  return {
    lo: compileDateBound(raw, false, {}, field),
    loInclusive: true,
    hi: compileDateBound(raw, true, {}, field),
    hiInclusive: true,
  };
}

/** The instants a range query on a date field matches; open ends are ±Infinity. */
export function dateRangeInterval(range: RangeBounds, spec: Record<string, unknown>, field: string): DateInterval {
  const opts = dateOptions(spec);
  return {
    // gt rounds up then excludes; gte rounds down and includes; lt rounds down and excludes;
    // lte rounds up and includes
    lo: range.lo === undefined ? -Infinity : compileDateBound(range.lo, !range.loInclusive, opts, field),
    loInclusive: range.loInclusive,
    hi: range.hi === undefined ? Infinity : compileDateBound(range.hi, range.hiInclusive, opts, field),
    hiInclusive: range.hiInclusive,
  };
}
