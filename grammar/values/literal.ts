/**
 * Values of literal (exact keyword) and ngram (full text) fields (reference §1.5).
 *
 * - Plain: `\x` becomes `x`; a trailing `~N` (N = digits[.digits], at the very end) is a fuzzy
 *   edit distance.
 * - Wildcard, when an unescaped `*` or `?` occurs: escapes are dropped (so `\*` turns into a real
 *   wildcard), runs of `*` collapse to one, and a trailing `~N` is ignored.
 */
import { unsignedDecimalEnd } from './number-text.js';

export type LiteralValue = { kind: 'literal'; value: string; fuzz?: number } | { kind: 'wildcard'; value: string };

/** Whether `~N` starts at `i` and runs to the end of the value. */
function fuzzAt(s: string, i: number): boolean {
  return s.charCodeAt(i) === 126 /* ~ */ && unsignedDecimalEnd(s, i + 1) === s.length;
}

/** The reference's `to_number`: digits are an integer, digits with a fraction a float. */
function fuzzValue(text: string): number {
  return Number(text);
}

function codePointLength(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = s.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

export function parseLiteral(value: string): LiteralValue {
  const n = value.length;
  // Fast path: nothing to unescape, no wildcard, no fuzz.
  let plain = true;
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i);
    if (c === 92 || c === 42 || c === 63 || c === 126) {
      plain = false;
      break;
    }
  }
  if (plain) return { kind: 'literal', value };

  let out = '';
  let i = 0;
  while (i < n) {
    const c = value.charCodeAt(i);
    if (c === 42 /* * */ || c === 63 /* ? */) return parseWildcard(value);
    if (c === 126 && fuzzAt(value, i)) return { kind: 'literal', value: out, fuzz: fuzzValue(value.slice(i + 1)) };
    if (c === 92 /* \ */ && i + 1 < n) {
      const len = codePointLength(value, i + 1);
      out += value.slice(i + 1, i + 1 + len);
      i += 1 + len;
    } else {
      const len = codePointLength(value, i);
      out += value.slice(i, i + len);
      i += len;
    }
  }
  return { kind: 'literal', value: out };
}

function parseWildcard(value: string): LiteralValue {
  const n = value.length;
  let out = '';
  let i = 0;
  while (i < n) {
    const c = value.charCodeAt(i);
    if (c === 126 && fuzzAt(value, i)) break;
    if (c === 92 && i + 1 < n) {
      const len = codePointLength(value, i + 1);
      out += value.slice(i + 1, i + 1 + len);
      i += 1 + len;
    } else if (c === 42) {
      out += '*';
      i++;
      while (value.charCodeAt(i) === 42) i++;
    } else {
      const len = codePointLength(value, i);
      out += value.slice(i, i + len);
      i += len;
    }
  }
  return { kind: 'wildcard', value: out };
}
