/**
 * A value that its field type does not accept. `at` is where the unparsed rest starts inside the
 * value (the reference shows that rest after `starting at: `); the compiler turns it into a
 * `QueryError` at the matching place of the query text.
 */
export class ValueError extends Error {
  override readonly name = 'ValueError';
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/**
 * Where the unparsed rest of a value starts, as the message says it: the reference's
 * `, starting at: <rest>`, left out when there is no rest (the reference then ends its message
 * with a dangling `starting at: `, which reads as a truncated message).
 */
export const startingAt = (rest: string): string => (rest === '' ? '' : `, starting at: ${rest}`);

/** The reference's parser failure: `expected <label>, starting at: <rest>`. */
export function expected(label: string, value: string, at: number): ValueError {
  return new ValueError(`expected ${label}${startingAt(value.slice(at))}`, at);
}

/** A failure at the end of the value, so with no rest to name (`invalid date format …`). */
export function failedAt(message: string, at: number): ValueError {
  return new ValueError(message, at);
}
