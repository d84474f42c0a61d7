/**
 * The one error type of the search language. `message` uses the reference wording (reference
 * §1.8), which the HTTP layer returns verbatim as `400 {"error": message}`; `position` points at
 * the problem in the query text.
 */

export interface SourcePosition {
  /** UTF-16 offset into the query text (0-based). */
  offset: number;
  /** 1-based line; `\n`, `\r\n` and a lone `\r` each end a line. */
  line: number;
  /** 1-based column in UTF-16 code units. */
  column: number;
}

export class QueryError extends Error {
  override readonly name = 'QueryError';
  readonly position: SourcePosition;

  constructor(message: string, position: SourcePosition) {
    super(message);
    this.position = position;
  }

  /** An error at `offset` of `input` (clamped to the text). */
  static at(input: string, offset: number, message: string): QueryError {
    return new QueryError(message, positionAt(input, offset));
  }
}

/** Line and column of an offset. */
export function positionAt(input: string, offset: number): SourcePosition {
  const at = Math.max(0, Math.min(offset, input.length));
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < at; i++) {
    const c = input.charCodeAt(i);
    if (c === 10 /* \n */) {
      line++;
      lineStart = i + 1;
    } else if (c === 13 /* \r */) {
      if (input.charCodeAt(i + 1) === 10 && i + 1 < at) i++;
      line++;
      lineStart = i + 1;
    }
  }
  return { offset: at, line, column: at - lineStart + 1 };
}

export function isQueryError(error: unknown): error is QueryError {
  return error instanceof QueryError;
}
