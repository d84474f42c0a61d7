import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse, print, printTerm, type QueryNode } from '../../grammar/index.js';
import { bare, queryTree, rawTerm } from './arbitraries.js';

const limits = { maxTerms: 100_000, maxLength: 1_000_000 };
const tree = queryTree(rawTerm.map((raw): QueryNode => ({ kind: 'term', raw })));

describe('print', () => {
  it('random tree → print → parse gives the same tree', () => {
    fc.assert(
      fc.property(tree, fc.constantFrom<[',' | 'AND' | '&&', 'OR' | '||']>([',', 'OR'], ['AND', '||'], ['&&', 'OR']), (node, [and, or]) => {
        const text = print(node, { and, or });
        expect(bare(parse(text, { limits }).root!), text).toEqual(node);
      }),
      { numRuns: 3000 },
    );
  }, 120_000);

  it('any term text prints as one term', () => {
    fc.assert(
      fc.property(fc.oneof(rawTerm, fc.string({ unit: 'binary', maxLength: 12 })), (raw) => {
        const root = parse(printTerm(raw), { limits }).root;
        expect(root).toMatchObject({ kind: 'term', raw });
      }),
      { numRuns: 3000 },
    );
  }, 120_000);

  it('printing what parsed is stable', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'ab ,-!()"\\^2*:|&ANDORT'), maxLength: 20 }), (text) => {
        let root: QueryNode | null;
        try {
          root = parse(text, { limits }).root;
        } catch {
          return; // not a query: nothing to print
        }
        if (root === null) return;
        const again = parse(print(root), { limits }).root!;
        expect(bare(again)).toEqual(bare(root));
      }),
      { numRuns: 5000 },
    );
  }, 120_000);

  it.each<[string, string]>([
    ['a, b', 'a, b'],
    ['a || (b && c)', 'a OR b, c'],
    ['(a, b), c', '(a, b), c'],
    ['-(-a)', '-(-a)'],
    ['-a^2', '-a^2'],
    ['(a^2)^3', '(a^2)^3'],
    ['"a, b"', '"a, b"'],
    ['"AND"', '"AND"'],
    ['"-a"', '"-a"'],
    ['"a\\\\"', '"a\\\\"'],
    ['"a "', '"a "'],
    ['a^1.50', 'a^1.5'],
    ['x ^ 2', 'x ^ 2'],
    ['twilight sparkle', 'twilight sparkle'],
    ['rose (flower)', 'rose (flower)'],
  ])('%j prints as %j', (input, expected) => {
    expect(print(parse(input))).toBe(expected);
  });
});
