import { describe, expect, it } from 'vitest';
import { type QueryNode, parse, QueryError } from '../../grammar/index.js';

/** A compact picture of a tree: `and(a, or(b, c))`, `not(a)`, `a^2`. */
function show(node: QueryNode | null): string {
  if (node === null) return '∅';
  switch (node.kind) {
    case 'term':
      return node.raw;
    case 'and':
    case 'or':
      return `${node.kind}(${node.children.map(show).join(', ')})`;
    case 'not':
      return `not(${show(node.child)})`;
    case 'boost':
      return `(${show(node.child)})^${node.boost}`;
  }
}

const tree = (input: string) => show(parse(input).root);

function parseError(input: string): [string, number] {
  try {
    parse(input);
  } catch (error) {
    if (error instanceof QueryError) return [error.message, error.position.offset];
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input)} to fail`);
}

describe('parser: precedence OR < AND < boost < NOT (reference §1.3)', () => {
  it.each<[string, string]>([
    ['a', 'a'],
    ['a, b', 'and(a, b)'],
    ['a, b, c', 'and(a, b, c)'],
    ['a AND b && c, d', 'and(a, b, c, d)'],
    ['a , b', 'and(a , b)'],
    ['a OR b || c', 'or(a, b, c)'],
    ['a || b, c', 'or(a, and(b, c))'],
    ['a, b || c', 'or(and(a, b), c)'],
    ['a, b OR c, d', 'or(and(a, b), and(c, d))'],
    ['(a || b), c', 'and(or(a, b), c)'],
    ['a, (b, c)', 'and(a, and(b, c))'],
    ['(a, b), c', 'and(and(a, b), c)'],
    ['((a))', 'a'],
    ['-a', 'not(a)'],
    ['!a', 'not(a)'],
    ['NOT a', 'not(a)'],
    ['-a, b', 'and(not(a), b)'],
    ['-(a, b)', 'not(and(a, b))'],
    ['NOT (a OR b)', 'not(or(a, b))'],
    ['-(-a)', 'not(not(a))'],
    ['a^2', '(a)^2'],
    ['-a^2', '(not(a))^2'],
    ['a^2, b', 'and((a)^2, b)'],
    ['a, b^2', 'and(a, (b)^2)'],
    ['(a, b)^0.5', '(and(a, b))^0.5'],
    ['(a^2)^3', '((a)^2)^3'],
    ['a ^0', '(a)^0'],
    ['a OR b^2, c', 'or(a, and((b)^2, c))'],
  ])('%j → %s', (input, expected) => {
    expect(tree(input)).toBe(expected);
  });
});

describe('parser: empty and non-string input', () => {
  it.each(['', ' ', '\t\n\r\v\f'])('%j has no tree', (input) => {
    expect(parse(input).root).toBeNull();
  });

  it('null and undefined are empty queries', () => {
    expect(parse(null).root).toBeNull();
    expect(parse(undefined).root).toBeNull();
  });

  it.each([5, ['safe'], { q: 'safe' }, true])('%j is not a string', (input) => {
    expect(() => parse(input)).toThrow(new QueryError('search query is not a string', { offset: 0, line: 1, column: 1 }));
  });
});

describe('parser: syntax errors and their positions (reference §1.3, §1.8)', () => {
  it.each<[string, string, number]>([
    [')', 'Imbalanced parentheses.', 0],
    ['a, )', 'Imbalanced parentheses.', 3],
    ['(a', 'Imbalanced parentheses.', 0],
    ['x, ((a)', 'Imbalanced parentheses.', 3],
    ['(a^2^3)', 'Imbalanced parentheses.', 0],
    ['()', 'Imbalanced parentheses.', 1],
    ['safe)', 'junk at end of expression: )', 4],
    ['(safe) solo', 'junk at end of expression: solo', 7],
    ['"safe" solo', 'junk at end of expression: solo', 7],
    ['"safe" "solo"', 'junk at end of expression: solo', 7],
    ['a^2^3', 'junk at end of expression: 3', 3],
    ['a^2^3.50', 'junk at end of expression: 3.5', 3],
    ['a^2^+03', 'junk at end of expression: 3', 3],
    ['(a) -b, c', 'junk at end of expression: -b,c', 4],
    ['(a) b OR c^2 (d) NOT e', 'junk at end of expression: bORc2(d)NOTe', 4],
    ['^1e5', 'Expected a term.', 0],
    ['safe^1e5', 'junk at end of expression: e5', 6],
    ['safe,', 'Expected a term.', 5],
    [',safe', 'Expected a term.', 0],
    ['safe,,solo', 'Expected a term.', 5],
    ['safe OR ', 'Expected a term.', 8],
    [' AND x', 'Expected a term.', 1],
    ['^2', 'Expected a term.', 0],
    ['--x', 'Expected a term.', 1],
    ['!-x', 'Expected a term.', 1],
    ['NOT -safe', 'Expected a term.', 4],
    ['- NOT x', 'Expected a term.', 2],
    ['-', 'Expected a term.', 1],
    ['a, -', 'Expected a term.', 4],
    ['(', 'Expected a term.', 1],
    ['x^-1', 'Boost value must be non-negative.', 1],
    ['(a, b)^-0.5', 'Boost value must be non-negative.', 6],
  ])('%j → %s at %i', (input, message, offset) => {
    expect(parseError(input)).toEqual([message, offset]);
  });

  it('reports line and column', () => {
    try {
      parse('safe,\n  solo)');
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(QueryError);
      expect((error as QueryError).position).toEqual({ offset: 12, line: 2, column: 7 });
    }
  });
});

describe('parser: spans and terms', () => {
  it('records where each node stands', () => {
    const root = parse('a, (b OR "c d")^2').root!;
    expect(root).toMatchObject({ kind: 'and', span: { start: 0, end: 17 } });
    if (root.kind !== 'and') throw new Error('and expected');
    expect(root.children[0]).toEqual({ kind: 'term', raw: 'a', quoted: false, span: { start: 0, end: 1 } });
    expect(root.children[1]).toMatchObject({ kind: 'boost', boost: 2, span: { start: 3, end: 17 } });
  });

  it('hands every term to the hook in input order, before a later syntax error', () => {
    const seen: string[] = [];
    expect(() => parse('a, (b OR c), d )', { onTerm: (t) => seen.push(t.raw) })).toThrow('junk at end of expression: )');
    expect(seen).toEqual(['a', 'b', 'c', 'd']);
  });

  it('can be re-entered from the hook (a custom field compiling another query)', () => {
    const inner: string[] = [];
    const outer = parse('a, b', { onTerm: (t) => inner.push(show(parse(`${t.raw}1 OR ${t.raw}2`).root)) });
    expect(show(outer.root)).toBe('and(a, b)');
    expect(inner).toEqual(['or(a1, a2)', 'or(b1, b2)']);
  });
});
