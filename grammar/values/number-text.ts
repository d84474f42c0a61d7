/** Small scanners for the digit runs the value parsers share. */

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** End of a run of ASCII digits starting at `i` (equal to `i` when there is none). */
export function digitsEnd(s: string, i: number): number {
  while (i < s.length && isDigit(s.charCodeAt(i))) i++;
  return i;
}

/** End of `[+-]?\d+` at `i`, or -1. */
export function signedIntEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  const j = c === 43 || c === 45 ? i + 1 : i;
  const end = digitsEnd(s, j);
  return end === j ? -1 : end;
}

/** End of `\d+(\.\d+)?` at `i` (the optional fraction needs a digit after the dot), or -1. */
export function unsignedDecimalEnd(s: string, i: number): number {
  const end = digitsEnd(s, i);
  if (end === i) return -1;
  if (s.charCodeAt(end) === 46 && isDigit(s.charCodeAt(end + 1))) return digitsEnd(s, end + 1);
  return end;
}

/** End of `[+-]?\d+(\.\d+)?` at `i`, or -1. */
export function signedDecimalEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  const j = c === 43 || c === 45 ? i + 1 : i;
  return unsignedDecimalEnd(s, j);
}

export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;

export function clampInt32(n: number): number {
  return n < INT32_MIN ? INT32_MIN : n > INT32_MAX ? INT32_MAX : n;
}

/** A decimal text as a finite number (overflow saturates at the largest double). */
export function finiteNumber(text: string): number {
  const n = Number(text);
  if (Number.isFinite(n)) return n;
  return n > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
}
