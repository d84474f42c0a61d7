/**
 * Values of a FieldSet's fields (field-set.ts): the shapes of stored entries, and how one value
 * becomes a term or a number, failing as OpenSearch fails on a value its mapping rejects.
 */
import { toEpochMillis } from '../../../../grammar/index.js';

/*
 * Stored record of a document (RowStore), a sequence of entries `varint field, byte shape,
 * payload` (field 0 = extras):
 *   NULL                      the value was null
 *   SCALAR item | string      one keyword item (varint ord·4 + kind: 0 string, 1 number,
 *                             2 boolean, 3 null) or one text string
 *   ARRAY varint n, items     an array of the above
 *   OBJECT                    an object field was an object (its leaves have their own entries)
 *   NESTED varint n           an array of n nested objects (the next n documents of the child set)
 *   NESTED_ONE                a single nested object (one child document)
 *   JSON string               any other value, verbatim (numbers in strings, numeric arrays, …)
 *   DATE_ISO / DATE_ISO_S / DATE_OBJ   a date given as toISOString() text, the same without
 *                             milliseconds, or a Date; the value is in the column
 *   extras: JSON of { path: value } for unmapped fields and shapes not described above
 * A plain finite number of a numeric field has no entry: the column holds it.
 */
export const enum Shape {
  Null = 0,
  Scalar = 1,
  Array = 2,
  Object = 3,
  Nested = 4,
  NestedOne = 5,
  Json = 6,
  DateIso = 7,
  DateIsoS = 8,
  DateObj = 9,
}

export type NumericType = 'integer' | 'long' | 'float' | 'date';
export type TermKind = 'keyword' | 'boolean' | 'ip';

export class MappingError extends Error {}

export function parseFail(f: { path: string }, value: unknown, what: string): never {
  throw new MappingError(`failed to parse field [${f.path}] of type [${what}]: ${JSON.stringify(value)}`);
}

/** The term a keyword-like field indexes for one scalar value (null: nothing, undefined: invalid). */
export function toTerm(kind: TermKind, value: unknown): string | null | undefined {
  if (value === null || value === undefined) return null;
  if (kind === 'boolean') {
    if (value === true || value === 'true') return 'true';
    if (value === false || value === 'false' || value === '') return 'false';
    return undefined;
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  return undefined;
}

/** A numeric field's value as a number (NaN when it is not one). */
export function toNumber(type: NumericType, value: unknown): number {
  if (type === 'date') return toEpochMillis(value);
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return NaN;
}
