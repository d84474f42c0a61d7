/** fast-check generators of query trees shared by the property tests. */
import fc from 'fast-check';
import type { QueryNode } from '../../grammar/index.js';

/** Characters that matter to the lexer, plus some ordinary ones. */
const SYNTAX_CHARS = [...'abcAZ01 ,-!()"\\^*?~:._|&\t\n', 'AND', 'OR', 'NOT', ' AND ', ' OR ', ' || ', ' && ', 'NOT ', '^2', '\u00a0', 'é', '\u{1F600}'];

/** Raw term texts: arbitrary strings biased towards syntax. */
export const rawTerm: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom(...SYNTAX_CHARS), maxLength: 8 }) },
  { weight: 2, arbitrary: fc.constantFrom('safe', 'solo', 'twilight sparkle', 'artist:foo', 'width:5', 'a b', 'rose (flower)', 'x\\,y') },
  { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
);

/** Non-negative boosts that print without exponent and read back exactly. */
export const boostValue: fc.Arbitrary<number> = fc
  .oneof(fc.nat(1000), fc.double({ min: 0, max: 1e6, noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0.5, 1e21, 1e-7, Number.MAX_VALUE))
  .map((n) => Math.abs(n) + 0);

/** Trees over a leaf generator; chains have two to four operands. */
export function queryTree(leaf: fc.Arbitrary<QueryNode>, maxDepth = 4): fc.Arbitrary<QueryNode> {
  const { node } = fc.letrec<{ node: QueryNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', maxDepth, withCrossShrink: true },
      leaf,
      fc.array(tie('node'), { minLength: 2, maxLength: 4 }).map((children): QueryNode => ({ kind: 'and', children })),
      fc.array(tie('node'), { minLength: 2, maxLength: 4 }).map((children): QueryNode => ({ kind: 'or', children })),
      tie('node').map((child): QueryNode => ({ kind: 'not', child })),
      fc.tuple(tie('node'), boostValue).map(([child, boost]): QueryNode => ({ kind: 'boost', child, boost })),
    ),
  }));
  return node;
}

/** The tree without spans and quoting hints. */
export function bare(node: QueryNode): QueryNode {
  switch (node.kind) {
    case 'term':
      return { kind: 'term', raw: node.raw };
    case 'and':
    case 'or':
      return { kind: node.kind, children: node.children.map(bare) };
    case 'not':
      return { kind: 'not', child: bare(node.child) };
    case 'boost':
      return { kind: 'boost', child: bare(node.child), boost: node.boost };
  }
}
