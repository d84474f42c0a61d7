/**
 * The syntax tree of a search query. It mirrors what was written: a chain of one operator
 * (`a, b, c`) is one node with its operands in order, and a parenthesised chain of the same
 * operator (`a, (b, c)`) stays a nested node, so printing and compiling see the grouping.
 * Field names, ranges and values are not split here: that depends on the index (see
 * `term-range.ts` and `compile.ts`).
 */

/** Offsets `[start, end)` in the query text; absent on trees built by hand. */
export interface Span {
  start: number;
  end: number;
}

/** One term as the lexer produced it: quotes removed, `\"`/`\\` unescaped inside quotes, every other backslash kept. */
export interface TermNode {
  kind: 'term';
  raw: string;
  /** Whether it was written in double quotes (printing hint only; it does not change the meaning). */
  quoted?: boolean;
  span?: Span;
}

/** `a, b` / `a AND b` / `a && b`: at least two operands. */
export interface AndNode {
  kind: 'and';
  children: QueryNode[];
  span?: Span;
}

/** `a OR b` / `a || b`: at least two operands. */
export interface OrNode {
  kind: 'or';
  children: QueryNode[];
  span?: Span;
}

/** `-a` / `!a` / `NOT a`. */
export interface NotNode {
  kind: 'not';
  child: QueryNode;
  span?: Span;
}

/** `a^2`: a non-negative relevance boost. */
export interface BoostNode {
  kind: 'boost';
  child: QueryNode;
  boost: number;
  span?: Span;
}

export type QueryNode = TermNode | AndNode | OrNode | NotNode | BoostNode;

/** A parsed query: `root` is null for an empty (whitespace-only) query, which matches nothing. */
export interface QueryAst {
  input: string;
  root: QueryNode | null;
}

/** Number of nodes (for limits and tests). */
export function countNodes(node: QueryNode): number {
  let n = 0;
  const stack: QueryNode[] = [node];
  while (stack.length > 0) {
    const cur = stack.pop()!;
    n++;
    if (cur.kind === 'and' || cur.kind === 'or') stack.push(...cur.children);
    else if (cur.kind === 'not' || cur.kind === 'boost') stack.push(cur.child);
  }
  return n;
}
