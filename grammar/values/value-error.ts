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

/** The reference's parser failure: `expected <label>, starting at: <rest>`. */
export function expected(label: string, value: string, at: number): ValueError {
  return new ValueError(`expected ${label}, starting at: ${value.slice(at)}`, at);
}

/** A failure that names no rest (`invalid date format …, starting at: ` at the end of the value). */
export function failedAt(message: string, at: number): ValueError {
  return new ValueError(message, at);
}
