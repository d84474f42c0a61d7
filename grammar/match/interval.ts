/**
 * Whether a value lies between two bounds, each inclusive or not; an undefined bound is open.
 * Numbers, and strings whose JavaScript order is the order wanted (fixed-width keys).
 */
export function intervalTest<T extends number | string>(
  lo: T | undefined,
  loInclusive: boolean,
  hi: T | undefined,
  hiInclusive: boolean,
): (x: T) => boolean {
  return (x) =>
    (lo === undefined || (loInclusive ? x >= lo : x > lo)) && (hi === undefined || (hiInclusive ? x <= hi : x < hi));
}
