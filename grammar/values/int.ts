/**
 * Values of int fields: `[+-]?\d+` clamped to int32, optionally `~D` (D unsigned digits) for the
 * inclusive range `[v-D, v+D]`, bounds clamped to int32; trailing whitespace is allowed.
 */
import { expected } from './value-error.js';
import { clampInt32, digitsEnd, isDigit, signedIntEnd } from './number-text.js';
import { isSpace } from '../lexer.js';

export const INT_LABEL = "a signed integer, like `3' or `-10'";

export type IntValue = { kind: 'int'; value: number } | { kind: 'int_range'; lower: number; upper: number };

export function toInt32(text: string): number {
  const n = Number(text);
  return Number.isFinite(n) ? clampInt32(n) : n > 0 ? clampInt32(Infinity) : clampInt32(-Infinity);
}

export function parseInt32(value: string): IntValue {
  const end = signedIntEnd(value, 0);
  if (end === -1) throw expected(INT_LABEL, value, 0);
  const center = toInt32(value.slice(0, end));
  let result: IntValue = { kind: 'int', value: center };
  let i = end;
  if (value.charCodeAt(i) === 126 /* ~ */ && isDigit(value.charCodeAt(i + 1))) {
    const devEnd = digitsEnd(value, i + 1);
    const deviation = Number(value.slice(i + 1, devEnd)); // may be Infinity: the bounds clamp
    result = { kind: 'int_range', lower: clampInt32(center - deviation), upper: clampInt32(center + deviation) };
    i = devEnd;
  }
  while (i < value.length && isSpace(value.charCodeAt(i))) i++;
  if (i !== value.length) throw expected(INT_LABEL, value, i);
  return result;
}
