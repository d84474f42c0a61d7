/**
 * The keyword a value is indexed as: strings as they are, numbers by their canonical text,
 * booleans as `true`/`false`, dates as ISO text. Anything else has no keyword.
 */
export function keywordOf(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'bigint':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    default:
      return v instanceof Date ? v.toISOString() : undefined;
  }
}
