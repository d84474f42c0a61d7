/** Parsing of path and query values. Nothing here throws: bad input gives undefined or a default. */
import { INT32_MAX } from '../db/int32.js';

/**
 * A record id from a path segment: decimal digits only, within PostgreSQL's `integer`. Anything
 * else (`abc`, `1.5`, `-1`, `99999999999`) is undefined, which routes answer with 404.
 */
export function parseId(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n >= 1 && n <= INT32_MAX ? n : undefined;
}

/**
 * Elixir's `Integer.parse` as the reference's pagination uses it: an optional sign and the
 * leading digits (`"2abc"` → 2); undefined when there are none. Values beyond the safe-integer
 * range saturate, which the callers clamp anyway.
 */
export function integerParsePrefix(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^([+-]?)(\d+)/.exec(value);
  if (!m) return undefined;
  const digits = m[2]!.replace(/^0+(?=\d)/, '');
  const n = digits.length > 15 ? Number.MAX_SAFE_INTEGER : Number(digits);
  return m[1] === '-' ? -n : n;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A textual path value (slug, short name) safe to compare in SQL: undefined when empty, absurdly
 * long, or holding characters PostgreSQL text cannot store (NUL, lone surrogates).
 */
export function textParam(value: string | undefined): string | undefined {
  if (value === undefined || value.length === 0 || value.length > 1000) return undefined;
  if (value.includes('\0') || LONE_SURROGATE.test(value)) return undefined;
  return value;
}
