/**
 * Field detection on a raw term (reference §1.4). The term must start with `F:`, `F.eq:`,
 * `F.gt:`, `F.gte:`, `F.lt:` or `F.lte:` for a field `F` the role may use (case-sensitive; an
 * escaped colon stops detection); the value is the rest, whitespace-trimmed. Anything else is
 * the whole term, untrimmed, for the default field with range `eq`.
 */
import { leadingSpace, trimUnicode } from './whitespace.js';

export type RangeOp = 'eq' | 'gt' | 'gte' | 'lt' | 'lte';

export interface TermTarget {
  /** The field as written, or null for the default field. */
  field: string | null;
  range: RangeOp;
  value: string;
  /** Where `value` starts inside the raw term. */
  valueAt: number;
}

/** The range suffix spelled in `raw[from, to)`, if any. */
function rangeOp(raw: string, from: number, to: number): RangeOp | null {
  const len = to - from;
  if (len < 2 || len > 3) return null;
  const a = raw.charCodeAt(from);
  const b = raw.charCodeAt(from + 1);
  const c = len === 3 ? raw.charCodeAt(from + 2) : -1;
  if (a === 101 /* e */ && b === 113 /* q */ && len === 2) return 'eq';
  if ((a === 103 /* g */ || a === 108) /* l */ && b === 116 /* t */) {
    if (len === 2) return a === 103 ? 'gt' : 'lt';
    if (c === 101 /* e */) return a === 103 ? 'gte' : 'lte';
  }
  return null;
}

/** `fields` answers whether a name is a field the role may use (a Set or Map of names). */
export function splitTermRange(raw: string, fields: { has(name: string): boolean }): TermTarget {
  const colon = raw.indexOf(':');
  if (colon > 0) {
    let field: string | null = null;
    let range: RangeOp = 'eq';
    const head = raw.slice(0, colon);
    if (fields.has(head)) {
      field = head;
    } else {
      const dot = head.lastIndexOf('.');
      const op = dot > 0 ? rangeOp(raw, dot + 1, colon) : null;
      if (op !== null && fields.has(head.slice(0, dot))) {
        field = head.slice(0, dot);
        range = op;
      }
    }
    if (field !== null) {
      const rest = raw.slice(colon + 1);
      return { field, range, value: trimUnicode(rest), valueAt: colon + 1 + leadingSpace(rest) };
    }
  }
  return { field: null, range: 'eq', value: raw, valueAt: 0 };
}
