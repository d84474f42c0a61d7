/**
 * The lexer of the search language (reference §1.2). It scans by hand, because the token rules
 * depend on what surrounds them (an `AND` needs whitespace on both sides, a `-` only negates at a
 * token start, a term runs until a stop sequence and keeps balanced parentheses), and produces
 * chevrotain tokens for the parser.
 *
 * At each token start the kinds are tried in the reference's order: `,`, `-`/`!`, ` AND `/` && `,
 * ` OR `/` || `, `NOT `, `(`, `)`, `^N`, whitespace (skipped), quoted term, bare term.
 */
import { createToken, EOF, Lexer, type IToken, type TokenType } from 'chevrotain';
import { QueryError } from './errors.js';
import { DEFAULT_LIMITS, limitMessages, type QueryLimits } from './limits.js';

export const AndToken = createToken({ name: 'And', pattern: Lexer.NA, label: "','" });
export const OrToken = createToken({ name: 'Or', pattern: Lexer.NA, label: "'OR'" });
export const NotToken = createToken({ name: 'Not', pattern: Lexer.NA, label: "'NOT'" });
export const LParenToken = createToken({ name: 'LParen', pattern: Lexer.NA, label: "'('" });
export const RParenToken = createToken({ name: 'RParen', pattern: Lexer.NA, label: "')'" });
export const BoostToken = createToken({ name: 'Boost', pattern: Lexer.NA, label: "'^N'" });
export const TermToken = createToken({ name: 'Term', pattern: Lexer.NA, label: 'a term' });

/** Every token type, in the reference's matching order. */
export const allTokens: TokenType[] = [AndToken, NotToken, OrToken, LParenToken, RParenToken, BoostToken, TermToken];

export interface TermPayload {
  /** The term without its quotes; inside quotes `\"` and `\\` are unescaped, other escapes kept. */
  raw: string;
  quoted: boolean;
}

export interface BoostPayload {
  value: number;
  /** The number as written (after `^`). */
  text: string;
}

/** Whitespace between tokens: space, `\t`, `\n`, `\r`, `\v`, `\f` (nothing else). */
export function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

function skipSpaces(input: string, i: number): number {
  const n = input.length;
  while (i < n && isSpace(input.charCodeAt(i))) i++;
  return i;
}

/** Length of `AND`/`&&` (kind 1) or `OR`/`||` (kind 2) at `i` when followed by whitespace, else 0. */
function operatorWordAt(input: string, i: number): { kind: 1 | 2; len: number } | null {
  const c = input.charCodeAt(i);
  let kind: 1 | 2;
  let len: number;
  if (c === 65 /* A */ && input.startsWith('AND', i)) (kind = 1), (len = 3);
  else if (c === 38 /* & */ && input.charCodeAt(i + 1) === 38) (kind = 1), (len = 2);
  else if (c === 79 /* O */ && input.charCodeAt(i + 1) === 82 /* R */) (kind = 2), (len = 2);
  else if (c === 124 /* | */ && input.charCodeAt(i + 1) === 124) (kind = 2), (len = 2);
  else return null;
  return isSpace(input.charCodeAt(i + len)) ? { kind, len } : null;
}

/** End of a boost `^[+-]?\d+(\.\d+)?` at `i`, or -1. */
export function boostEnd(input: string, i: number): number {
  if (input.charCodeAt(i) !== 94 /* ^ */) return -1;
  let j = i + 1;
  const s = input.charCodeAt(j);
  if (s === 43 || s === 45) j++;
  const digitsStart = j;
  while (isDigit(input.charCodeAt(j))) j++;
  if (j === digitsStart) return -1;
  if (input.charCodeAt(j) === 46 /* . */ && isDigit(input.charCodeAt(j + 1))) {
    j += 2;
    while (isDigit(input.charCodeAt(j))) j++;
  }
  return j;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Length of the code point at `i` (1, or 2 for a surrogate pair). */
function charLen(input: string, i: number): number {
  const c = input.charCodeAt(i);
  if (c >= 0xd800 && c <= 0xdbff) {
    const d = input.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return 2;
  }
  return 1;
}

/** The numeric value of a boost's text (overflow saturates at the largest double). */
export function boostValue(text: string): BoostPayload {
  let value = Number(text);
  if (!Number.isFinite(value)) value = value > 0 ? Number.MAX_VALUE : -Number.MAX_VALUE;
  return { value, text };
}

/** How the reference prints a boost number in `junk at end of expression`: integers plainly, floats with a fraction. */
export function boostDisplay(text: string): string {
  if (!text.includes('.')) return BigInt(text).toString();
  const value = Number(text);
  let display = String(value === 0 && text.startsWith('-') ? '-0' : value);
  if (display.includes('e')) {
    const [mantissa, exponent] = display.split('e') as [string, string];
    display = `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}e${exponent.replace('+', '')}`;
  } else if (!display.includes('.')) {
    display += '.0';
  }
  return display;
}

class Scanner {
  constructor(
    readonly input: string,
    readonly maxDepth: number,
  ) {}

  /** Whether the whitespace run at `i` is followed by `)`, a boost, or ` AND `/` OR ` (a stop sequence). */
  spaceStopAt(i: number): boolean {
    const input = this.input;
    const j = skipSpaces(input, i);
    const d = input.charCodeAt(j);
    if (d === 41) return true;
    if (d === 94) return boostEnd(input, j) !== -1;
    return operatorWordAt(input, j) !== null;
  }

  /**
   * End of the bare text starting at `i` (reference `dirty_text`): at least one character, `\x`
   * pairs, balanced `( … )` groups, stopping at a stop sequence or an unbalanced parenthesis.
   * Returns `i` when nothing could be consumed.
   */
  dirtyEnd(i: number, depth: number): number {
    const input = this.input;
    const n = input.length;
    while (i < n) {
      const c = input.charCodeAt(i);
      if (c === 44 /* , */ || c === 41 /* ) */) break;
      if (c === 94 /* ^ */) {
        if (boostEnd(input, i) !== -1) break;
        i++;
      } else if (isSpace(c)) {
        // Every position of a whitespace run has the same lookahead: what follows the run.
        if (this.spaceStopAt(i)) break;
        i = skipSpaces(input, i);
      } else if (c === 92 /* \ */) {
        i += i + 1 < n ? 1 + charLen(input, i + 1) : 1;
      } else if (c === 40 /* ( */) {
        if (depth + 1 > this.maxDepth) throw QueryError.at(input, i, limitMessages.depth(this.maxDepth));
        const inner = this.dirtyEnd(i + 1, depth + 1);
        if (inner === i + 1 || input.charCodeAt(inner) !== 41) break;
        i = inner + 1;
      } else {
        // Both halves of a surrogate pair are ordinary characters: one code unit at a time is fine.
        i++;
      }
    }
    return i;
  }

  /** A quoted term at `i` (which holds `"`): its end and unescaped text, or null if it never closes. */
  quoted(i: number): { end: number; raw: string } | null {
    const input = this.input;
    const n = input.length;
    let raw = '';
    let from = i + 1;
    let j = i + 1;
    while (j < n) {
      const c = input.charCodeAt(j);
      if (c === 34 /* " */) return { end: j + 1, raw: raw + input.slice(from, j) };
      if (c === 92 /* \ */ && j + 1 < n) {
        const d = input.charCodeAt(j + 1);
        if (d === 34 || d === 92) {
          raw += input.slice(from, j);
          from = j + 1; // keep the escaped character itself
          j += 2;
        } else {
          j += 1 + charLen(input, j + 1);
        }
      } else {
        j++;
      }
    }
    return null;
  }
}

function token(type: TokenType, image: string, start: number, payload?: unknown): IToken {
  return {
    image,
    startOffset: start,
    endOffset: start + image.length - 1,
    startLine: NaN,
    endLine: NaN,
    startColumn: NaN,
    endColumn: NaN,
    tokenTypeIdx: type.tokenTypeIdx!,
    tokenType: type,
    payload,
  };
}

/**
 * Split a query into tokens. Whitespace is dropped; line and column fields are not filled (use
 * `positionAt` on `startOffset`). Throws `QueryError` only for the limits.
 */
export function lex(input: string, limits: Pick<QueryLimits, 'maxTerms' | 'maxDepth'> = DEFAULT_LIMITS): IToken[] {
  const tokens: IToken[] = [];
  const scanner = new Scanner(input, limits.maxDepth);
  const n = input.length;
  let terms = 0;
  let i = 0;
  while (i < n) {
    const c = input.charCodeAt(i);
    if (c === 44 /* , */) {
      tokens.push(token(AndToken, ',', i));
      i++;
    } else if (c === 45 /* - */ || c === 33 /* ! */) {
      tokens.push(token(NotToken, input[i]!, i));
      i++;
    } else if (isSpace(c)) {
      const j = skipSpaces(input, i);
      const op = operatorWordAt(input, j);
      if (op) {
        const image = input.slice(j, j + op.len);
        tokens.push(token(op.kind === 1 ? AndToken : OrToken, image, j));
        i = skipSpaces(input, j + op.len);
      } else {
        i = j;
      }
    } else if (c === 78 /* N */ && input.startsWith('NOT', i) && isSpace(input.charCodeAt(i + 3))) {
      tokens.push(token(NotToken, 'NOT', i));
      i = skipSpaces(input, i + 3);
    } else if (c === 40 /* ( */) {
      tokens.push(token(LParenToken, '(', i));
      i++;
    } else if (c === 41 /* ) */) {
      tokens.push(token(RParenToken, ')', i));
      i++;
    } else {
      const boost = c === 94 ? boostEnd(input, i) : -1;
      if (boost !== -1) {
        const text = input.slice(i, boost);
        tokens.push(token(BoostToken, text, i, boostValue(text.slice(1))));
        i = boost;
        continue;
      }
      if (++terms > limits.maxTerms) throw QueryError.at(input, i, limitMessages.terms(limits.maxTerms));
      const quoted = c === 34 ? scanner.quoted(i) : null;
      if (quoted) {
        const payload: TermPayload = { raw: quoted.raw, quoted: true };
        tokens.push(token(TermToken, input.slice(i, quoted.end), i, payload));
        i = quoted.end;
      } else {
        let end = scanner.dirtyEnd(i, 0);
        if (end === i) end = i + charLen(input, i); // unreachable by construction; never loop forever
        const image = input.slice(i, end);
        const payload: TermPayload = { raw: image, quoted: false };
        tokens.push(token(TermToken, image, i, payload));
        i = end;
      }
    }
  }
  return tokens;
}

/** The text the reference shows for a leftover token in `junk at end of expression: …`. */
export function junkText(tok: IToken): string {
  if (tok.tokenType === TermToken) return (tok.payload as TermPayload).raw;
  if (tok.tokenType === BoostToken) return boostDisplay((tok.payload as BoostPayload).text);
  return tok.image;
}

export { EOF };
