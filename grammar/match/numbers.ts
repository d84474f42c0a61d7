/**
 * Numbers in queries on numeric fields: integer fields match only whole numbers, float fields
 * compare as 32-bit floats (the query value rounded as the indexed value was), doubles as they are.
 */
export type NumericKind = 'integer' | 'float' | 'double';

/** A query value read as a number; OpenSearch's error when it is not one. */
export function queryNumber(v: unknown, field: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new Error(`[${field}] cannot parse number from [${String(v)}]`);
  return n;
}

/** The indexed number a term query asks for, or undefined when no value of the field can equal it. */
export function numericTerm(raw: unknown, kind: NumericKind, field: string): number | undefined {
  const n = queryNumber(raw, field);
  if (kind === 'float') return Math.fround(n);
  if (kind === 'integer' && !Number.isInteger(n)) return undefined;
  return n;
}

/** A range bound on a numeric field, as a number comparable with indexed values (open: ±Infinity). */
export function numericBound(raw: unknown, kind: NumericKind, field: string, open: number): number {
  if (raw === undefined) return open;
  const n = queryNumber(raw, field);
  return kind === 'float' ? Math.fround(n) : n;
}
