/** Values of numeric (ID) fields: unsigned `\d+` only, clamped to int32; no ranges, no fuzz. */
import { expected } from './value-error.js';
import { clampInt32, digitsEnd } from './number-text.js';

export const NUMERIC_LABEL = "a numeric value, like `3' or `10'";

export function parseNumeric(value: string): number {
  const end = digitsEnd(value, 0);
  if (end === 0) throw expected(NUMERIC_LABEL, value, 0);
  if (end !== value.length) throw expected(NUMERIC_LABEL, value, end);
  return clampInt32(Number(value.slice(0, end)));
}
