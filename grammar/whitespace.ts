/**
 * Unicode whitespace as the reference's `String.trim` sees it (the Unicode White_Space property).
 * The lexer's own whitespace is narrower (see `isSpace` in `lexer.ts`).
 */
export function isUnicodeSpace(c: number): boolean {
  return (
    (c >= 9 && c <= 13) ||
    c === 32 ||
    c === 0x85 ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000
  );
}

/** Number of leading whitespace code units. */
export function leadingSpace(s: string): number {
  let i = 0;
  while (i < s.length && isUnicodeSpace(s.charCodeAt(i))) i++;
  return i;
}

export function trimUnicode(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isUnicodeSpace(s.charCodeAt(start))) start++;
  while (end > start && isUnicodeSpace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}
