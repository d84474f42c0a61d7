/**
 * Reading the body of a query clause: its object shape, its single `{field: spec}` entry, the short
 * and long forms of a value, and the errors OpenSearch gives for the wrong shapes.
 */

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

export function queryError(kind: string, message: string): Error {
  return new Error(`[${kind}] ${message}`);
}

export function asObject(v: unknown, kind: string): Record<string, unknown> {
  if (!isPlainObject(v)) throw queryError(kind, `expected an object, got ${JSON.stringify(v)}`);
  return v;
}

/** The clauses of a `bool` occurrence or a `dis_max`: an array, or one clause on its own. */
export function asClauses(v: unknown, kind: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v;
  return [asObject(v, kind)];
}

/** The single `{field: spec}` entry of a field-level query, ignoring top-level options. */
export function fieldEntry(body: unknown, kind: string, options: readonly string[] = ['boost', '_name']): [string, unknown] {
  const obj = asObject(body, kind);
  const keys = Object.keys(obj).filter((k) => !options.includes(k));
  if (keys.length !== 1) {
    throw queryError(kind, `query expects exactly one field, got ${keys.length === 0 ? 'none' : keys.join(', ')}`);
  }
  const field = keys[0] as string;
  return [field, obj[field]];
}

/** Splits short form (`{f: v}`) and long form (`{f: {valueKey: v, ...options}}`). */
export function longForm(spec: unknown, valueKeys: readonly string[], kind: string): { value: unknown; opts: Record<string, unknown> } {
  if (isPlainObject(spec)) {
    for (const k of valueKeys) {
      if (spec[k] !== undefined) return { value: spec[k], opts: spec };
    }
    throw queryError(kind, `missing [${valueKeys[0]}] in ${JSON.stringify(spec)}`);
  }
  return { value: spec, opts: {} };
}

/** A query value that must be one scalar (dates given as `Date` read as their ISO text). */
export function scalarQueryValue(v: unknown, kind: string, field: string): string | number | boolean {
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) throw queryError(kind, `[${field}] query does not support an array of values`);
  throw queryError(kind, `[${field}] unsupported value ${JSON.stringify(v)}`);
}
