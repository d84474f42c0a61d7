/**
 * Values of float fields: `[+-]?\d+(\.\d+)?` (a leading digit is required), optionally `~D` (D an
 * unsigned decimal) for the inclusive range `[v-D, v+D]` (not clamped). Whole numbers come out as
 * JSON integers, as in the reference.
 */
import { expected } from './value-error.js';
import { finiteNumber, signedDecimalEnd, unsignedDecimalEnd } from './number-text.js';

export const FLOAT_LABEL = "a real number, like `2.7182818' or `-10'";

export type FloatValue = { kind: 'float'; value: number } | { kind: 'float_range'; lower: number; upper: number };

export function parseFloatValue(value: string): FloatValue {
  const end = signedDecimalEnd(value, 0);
  if (end === -1) throw expected(FLOAT_LABEL, value, 0);
  const center = finiteNumber(value.slice(0, end));
  if (value.charCodeAt(end) === 126 /* ~ */) {
    const devEnd = unsignedDecimalEnd(value, end + 1);
    if (devEnd !== -1) {
      if (devEnd !== value.length) throw expected(FLOAT_LABEL, value, devEnd);
      const deviation = finiteNumber(value.slice(end + 1, devEnd));
      return { kind: 'float_range', lower: finite(center - deviation), upper: finite(center + deviation) };
    }
  }
  if (end !== value.length) throw expected(FLOAT_LABEL, value, end);
  return { kind: 'float', value: center };
}

function finite(n: number): number {
  return Number.isFinite(n) ? n : n > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
}
