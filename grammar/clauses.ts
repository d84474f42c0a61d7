/**
 * A query as a tree of clauses, each with the text it was written as and the DSL it compiles to,
 * so that a caller can say which parts of a query (or of a filter's complex expression) match an
 * image: `clauseTree` builds the tree once, `clausePredicates` compiles each clause for the
 * evaluator, and `matchClauses` runs them against one document.
 *
 * The tree mirrors the syntax tree (`ast.ts`): a chain of one operator is one node with its
 * operands, a negation or a boost has one child. Every node's query is built the way `compile`
 * builds it (leaves compiled alone, chains folded, negations unwrapped), so the root's query is
 * the compiled query and each node's `matched` is exactly what that part of the query says.
 */
import type { QueryNode } from './ast.js';
import { compile, compileQuery, foldChain, negate, type CompileOptions } from './compile.js';
import type { Query } from './dsl.js';
import { compileEvaluator, type Doc, type DocPredicate, type EvaluateOptions } from './evaluate/index.js';
import type { IndexMapping } from './mapping.js';
import { parse } from './parser.js';

export type ClauseKind = QueryNode['kind'];

export interface Clause {
  kind: ClauseKind;
  /** The clause as written (a slice of the query text). */
  text: string;
  /** Offsets `[start, end)` of `text` in the query. */
  start: number;
  end: number;
  query: Query;
  children: Clause[];
}

/** A clause and whether one document matches it. */
export interface ClauseMatch {
  kind: ClauseKind;
  text: string;
  start: number;
  end: number;
  matched: boolean;
  children: ClauseMatch[];
}

/**
 * The clauses of `input`, or null for an empty query. Throws `QueryError` exactly as
 * `compileQuery` does (it runs first, so errors come in the reference's order).
 */
export function clauseTree(input: string, options: CompileOptions): Clause | null {
  compileQuery(input, options);
  const ast = parse(input, options.limits ? { limits: options.limits } : {});
  if (ast.root === null) return null;
  return clauseOf(ast.root, input, options);
}

function clauseOf(node: QueryNode, input: string, options: CompileOptions): Clause {
  const start = node.span?.start ?? 0;
  const end = node.span?.end ?? input.length;
  const base = { kind: node.kind, text: input.slice(start, end), start, end };
  switch (node.kind) {
    case 'term':
      return { ...base, query: compile({ input, root: node }, options), children: [] };
    case 'and':
    case 'or': {
      const children = node.children.map((c) => clauseOf(c, input, options));
      return { ...base, query: foldChain(children.map((c) => c.query), node.kind === 'and' ? 'must' : 'should'), children };
    }
    case 'not': {
      const child = clauseOf(node.child, input, options);
      return { ...base, query: negate(child.query), children: [child] };
    }
    case 'boost': {
      const child = clauseOf(node.child, input, options);
      return { ...base, query: { function_score: { query: child.query, boost: node.boost } }, children: [child] };
    }
  }
}

/** A clause tree with each clause's predicate, compiled once for many documents. */
export interface ClausePredicates {
  clause: Clause;
  test: DocPredicate;
  children: ClausePredicates[];
}

/**
 * Each clause's predicate. A clause the evaluator cannot run (it throws, compiling or on a
 * document) matches nothing, as the API's `spoilered` flag treats such an expression.
 */
export function clausePredicates(clause: Clause, mapping: IndexMapping, options?: EvaluateOptions): ClausePredicates {
  let test: DocPredicate;
  try {
    const run = compileEvaluator(clause.query, mapping, options);
    test = (doc) => {
      try {
        return run(doc);
      } catch {
        return false;
      }
    };
  } catch {
    test = () => false;
  }
  return { clause, test, children: clause.children.map((c) => clausePredicates(c, mapping, options)) };
}

/** Whether `doc` matches each clause. */
export function matchClauses(tree: ClausePredicates, doc: Doc): ClauseMatch {
  const { kind, text, start, end } = tree.clause;
  return { kind, text, start, end, matched: tree.test(doc), children: tree.children.map((c) => matchClauses(c, doc)) };
}
