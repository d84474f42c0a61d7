/**
 * The bounds of a `range` query: `gt`/`gte`/`lt`/`lte`, or the older `from`/`to` with
 * `include_lower`/`include_upper`. Options OpenSearch does not know are an error.
 */
import { queryError } from './query-body.js';

export interface RangeBounds {
  /** The raw lower bound (`gt` or `gte`), undefined when open. */
  lo: unknown;
  loInclusive: boolean;
  /** The raw upper bound (`lt` or `lte`), undefined when open. */
  hi: unknown;
  hiInclusive: boolean;
}

const RANGE_OPTIONS = new Set([
  'gt', 'gte', 'lt', 'lte', 'from', 'to', 'include_lower', 'include_upper', 'format', 'time_zone',
  'relation', 'boost', '_name',
]);

export function readRangeBounds(spec: Record<string, unknown>, field: string): RangeBounds {
  for (const k of Object.keys(spec)) {
    if (!RANGE_OPTIONS.has(k)) throw queryError('range', `[${field}] query does not support [${k}]`);
  }
  const given = (v: unknown) => (v === null ? undefined : v);
  let gt = given(spec.gt);
  let gte = given(spec.gte);
  let lt = given(spec.lt);
  let lte = given(spec.lte);
  if (spec.from !== undefined && spec.from !== null) {
    if (spec.include_lower === false) gt = spec.from;
    else gte = spec.from;
  }
  if (spec.to !== undefined && spec.to !== null) {
    if (spec.include_upper === false) lt = spec.to;
    else lte = spec.to;
  }
  return { lo: gt ?? gte, loInclusive: gt === undefined, hi: lt ?? lte, hiInclusive: lt === undefined };
}
