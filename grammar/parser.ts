/**
 * The parser of the search language (reference §1.3), a chevrotain grammar over the tokens of
 * `lexer.ts`. Loosest binding first:
 *
 *     query   := orExpr EOF
 *     orExpr  := andExpr ( OR andExpr )*
 *     andExpr := operand ( AND operand )*
 *     operand := NOT? ( "(" orExpr ")" | TERM ) BOOST?
 *
 * In an operand the negation binds tighter than the boost (`-a^2` boosts `-a`); exactly one
 * negation token is allowed, and a boost must be non-negative. (The reference has separate boost,
 * not and group rules; one rule is the same grammar with fewer calls per term.)
 *
 * The reference is right-recursive; a chain of one operator is kept as one node with its operands
 * in order, which is the same tree. Embedded actions are guarded by `RECORDING_PHASE` (chevrotain
 * runs each rule once to record the grammar) rather than wrapped in `ACTION` closures, which
 * would cost an allocation per call. Errors are the reference's, raised where the reference
 * raises them, and a hook sees every term as soon as it is parsed so that a caller can check
 * terms in the same order as the reference does (an invalid value before a later syntax error).
 */
import { EmbeddedActionsParser, type IToken } from 'chevrotain';
import type { QueryAst, QueryNode, TermNode } from './ast.js';
import { QueryError } from './errors.js';
import {
  allTokens,
  AndToken,
  BoostToken,
  EOF,
  junkText,
  lex,
  LParenToken,
  NotToken,
  OrToken,
  RParenToken,
  TermToken,
  type BoostPayload,
  type TermPayload,
} from './lexer.js';
import { limitMessages, resolveLimits, type QueryLimits } from './limits.js';

export const parseMessages = {
  imbalanced: 'Imbalanced parentheses.',
  expectedTerm: 'Expected a term.',
  negativeBoost: 'Boost value must be non-negative.',
  junk: (rest: string) => `junk at end of expression: ${rest}`,
  notString: 'search query is not a string',
};

export interface ParseOptions {
  limits?: Partial<QueryLimits>;
  /** Called for each term right after it is parsed, in input order. May throw a QueryError. */
  onTerm?: (term: TermNode) => void;
}

class QueryParser extends EmbeddedActionsParser {
  text = '';
  maxDepth = 64;
  depth = 0;
  onTerm: ((term: TermNode) => void) | undefined;

  constructor() {
    super(allTokens, { recoveryEnabled: false, maxLookahead: 1 });
    this.performSelfAnalysis();
  }

  private fail(tok: IToken, message: string): never {
    const offset = tok.tokenType === EOF ? this.text.length : tok.startOffset;
    throw QueryError.at(this.text, offset, message);
  }

  query = this.RULE('query', (): QueryNode => {
    const root = this.SUBRULE(this.orExpr);
    if (!this.RECORDING_PHASE && this.LA(1).tokenType !== EOF) {
      const rest: string[] = [];
      for (let k = 1; this.LA(k).tokenType !== EOF; k++) rest.push(junkText(this.LA(k)));
      this.fail(this.LA(1), parseMessages.junk(rest.join('')));
    }
    return root;
  });

  orExpr = this.RULE('orExpr', (): QueryNode => {
    const first = this.SUBRULE(this.andExpr);
    let children: QueryNode[] | undefined;
    this.MANY(() => {
      this.CONSUME(OrToken);
      const next = this.SUBRULE2(this.andExpr);
      if (!this.RECORDING_PHASE) (children ??= [first]).push(next);
    });
    return children ? { kind: 'or', children, span: spanOf(children) } : first;
  });

  andExpr = this.RULE('andExpr', (): QueryNode => {
    const first = this.SUBRULE(this.operand);
    let children: QueryNode[] | undefined;
    this.MANY(() => {
      this.CONSUME(AndToken);
      const next = this.SUBRULE2(this.operand);
      if (!this.RECORDING_PHASE) (children ??= [first]).push(next);
    });
    return children ? { kind: 'and', children, span: spanOf(children) } : first;
  });

  operand = this.RULE('operand', (): QueryNode => {
    const not = this.OPTION(this.consumeNot);
    if (!this.RECORDING_PHASE) {
      const next = this.LA(1);
      if (next.tokenType === RParenToken) this.fail(next, parseMessages.imbalanced);
      if (next.tokenType !== LParenToken && next.tokenType !== TermToken) this.fail(next, parseMessages.expectedTerm);
    }
    const inner = this.OR(this.groupAlternatives);
    let node = inner;
    if (not !== undefined && !this.RECORDING_PHASE) {
      node = { kind: 'not', child: inner, span: { start: not.startOffset, end: inner.span!.end } };
    }
    this.OPTION2(() => {
      const tok = this.CONSUME(BoostToken);
      if (!this.RECORDING_PHASE) {
        const { value } = tok.payload as BoostPayload;
        if (!(value >= 0)) this.fail(tok, parseMessages.negativeBoost);
        node = { kind: 'boost', child: node, boost: value, span: { start: node.span!.start, end: tok.endOffset! + 1 } };
      }
    });
    return node;
  });

  private readonly consumeNot = (): IToken => this.CONSUME(NotToken);

  // Built once: alternatives created per call would cost an allocation (and a named closure) per term.
  private readonly groupAlternatives = [
    {
      ALT: (): QueryNode => {
        const open = this.CONSUME(LParenToken);
        if (!this.RECORDING_PHASE && ++this.depth > this.maxDepth) this.fail(open, limitMessages.depth(this.maxDepth));
        const inner = this.SUBRULE2(this.orExpr);
        if (!this.RECORDING_PHASE) {
          if (this.LA(1).tokenType !== RParenToken) this.fail(open, parseMessages.imbalanced);
          this.depth--;
        }
        const close = this.CONSUME(RParenToken);
        return this.RECORDING_PHASE ? inner : widen(inner, open.startOffset, close.endOffset! + 1);
      },
    },
    {
      ALT: (): QueryNode => {
        const tok = this.CONSUME(TermToken);
        if (this.RECORDING_PHASE) return { kind: 'term', raw: '' };
        const { raw, quoted } = tok.payload as TermPayload;
        const term: TermNode = { kind: 'term', raw, quoted, span: { start: tok.startOffset, end: tok.endOffset! + 1 } };
        this.onTerm?.(term);
        return term;
      },
    },
  ];
}

function spanOf(children: QueryNode[]) {
  return { start: children[0]!.span!.start, end: children[children.length - 1]!.span!.end };
}

/** A group's node covers its parentheses, so that errors and printing can point at them. */
function widen(node: QueryNode, start: number, end: number): QueryNode {
  return { ...node, span: { start, end } } as QueryNode;
}

// One parser per nesting level of compiles (a custom field may compile another query while its
// own query is being parsed); each is built once and reused.
const idle: QueryParser[] = [];

/**
 * Parse a query into its syntax tree. Non-string input other than null/undefined (which mean
 * `""`) is an error, as in the reference; an empty or whitespace-only query has a null root.
 */
export function parse(input: unknown, options: ParseOptions = {}): QueryAst {
  if (input === null || input === undefined) return { input: '', root: null };
  if (typeof input !== 'string') throw new QueryError(parseMessages.notString, { offset: 0, line: 1, column: 1 });
  const limits = resolveLimits(options.limits);
  if (input.length > limits.maxLength) throw QueryError.at(input, limits.maxLength, limitMessages.length(limits.maxLength));
  const tokens = lex(input, limits);
  if (tokens.length === 0) return { input, root: null };

  const parser = idle.pop() ?? new QueryParser();
  try {
    parser.text = input;
    parser.maxDepth = limits.maxDepth;
    parser.depth = 0;
    parser.onTerm = options.onTerm;
    parser.input = tokens;
    let root: QueryNode;
    try {
      root = parser.query();
    } catch (error) {
      // Deep nesting is refused above; this only guards a caller that was already deep in its stack.
      if (error instanceof RangeError) throw QueryError.at(input, 0, limitMessages.depth(limits.maxDepth));
      throw error;
    }
    if (parser.errors.length > 0) {
      // Every path above raises its own error first; this only guards against surprises.
      const err = parser.errors[0]!;
      throw QueryError.at(input, err.token.startOffset >= 0 ? err.token.startOffset : input.length, parseMessages.expectedTerm);
    }
    return { input, root };
  } finally {
    parser.onTerm = undefined;
    parser.input = [];
    idle.push(parser);
  }
}
