/**
 * Printing a syntax tree back to query text that parses to the same tree. Operands that are
 * themselves chains (or boosts of boosts, negations of anything but a term) get parentheses;
 * terms are written bare when that is unambiguous in any position, otherwise in quotes.
 */
import type { QueryAst, QueryNode } from './ast.js';
import { isSpace, lex, TermToken, type TermPayload } from './lexer.js';

export interface PrintOptions {
  /** `','` (default) or `'AND'`. */
  and?: ',' | 'AND' | '&&';
  /** `'OR'` (default) or `'||'`. */
  or?: 'OR' | '||';
}

export function print(ast: QueryAst | QueryNode, options: PrintOptions = {}): string {
  const root = 'kind' in ast ? ast : ast.root;
  if (root === null) return '';
  const andSep = options.and === 'AND' ? ' AND ' : options.and === '&&' ? ' && ' : ', ';
  const orSep = options.or === '||' ? ' || ' : ' OR ';
  return printNode(root, andSep, orSep);
}

function printNode(node: QueryNode, andSep: string, orSep: string): string {
  switch (node.kind) {
    case 'term':
      return printTerm(node.raw);
    case 'or':
      return node.children.map((c) => (c.kind === 'or' ? `(${printNode(c, andSep, orSep)})` : printNode(c, andSep, orSep))).join(orSep);
    case 'and':
      return node.children
        .map((c) => (c.kind === 'or' || c.kind === 'and' ? `(${printNode(c, andSep, orSep)})` : printNode(c, andSep, orSep)))
        .join(andSep);
    case 'boost': {
      const c = node.child;
      const inner = printNode(c, andSep, orSep);
      return `${c.kind === 'or' || c.kind === 'and' || c.kind === 'boost' ? `(${inner})` : inner}^${plainDecimal(node.boost)}`;
    }
    case 'not': {
      const inner = printNode(node.child, andSep, orSep);
      return node.child.kind === 'term' ? `-${inner}` : `-(${inner})`;
    }
  }
}

/** A term, bare when it reads back the same wherever it stands, else quoted. */
export function printTerm(raw: string): string {
  return canBeBare(raw) ? raw : `"${raw.replace(/[\\"]/g, '\\$&')}"`;
}

const OPERATOR_START = /^(?:AND|&&|OR|\|\||NOT)(?:[ \t\n\r\v\f]|$)/;
const OPERATOR_END = /(?:^|[ \t\n\r\v\f])(?:AND|&&|OR|\|\|)$/;

function canBeBare(raw: string): boolean {
  if (raw === '' || raw.charCodeAt(0) === 34 /* " */) return false;
  if (isSpace(raw.charCodeAt(0)) || isSpace(raw.charCodeAt(raw.length - 1))) return false;
  if (OPERATOR_START.test(raw) || OPERATOR_END.test(raw)) return false;
  // An odd run of trailing backslashes would escape whatever follows the term.
  let slashes = 0;
  while (slashes < raw.length && raw.charCodeAt(raw.length - 1 - slashes) === 92) slashes++;
  if (slashes % 2 === 1) return false;
  try {
    const tokens = lex(raw, { maxTerms: 1, maxDepth: Number.MAX_SAFE_INTEGER });
    return tokens.length === 1 && tokens[0]!.tokenType === TermToken && (tokens[0]!.payload as TermPayload).raw === raw;
  } catch {
    return false;
  }
}

/** A non-negative number as digits with an optional fraction (no exponent), reading back exactly. */
export function plainDecimal(n: number): string {
  const s = String(n);
  if (!/e/i.test(s)) return s;
  const [mantissa, expText] = s.split(/e/i) as [string, string];
  const exp = Number(expText);
  const [intPart, fracPart = ''] = mantissa.split('.') as [string, string?];
  const digits = intPart + fracPart;
  const point = intPart.length + exp;
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}
