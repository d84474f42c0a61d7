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

const RANGES: ReadonlySet<string> = new Set(['eq', 'gt', 'gte', 'lt', 'lte']);

/** `fields` answers whether a name is a field the role may use (a Set or Map of names). */
export function splitTermRange(raw: string, fields: { has(name: string): boolean }): TermTarget {
  const colon = raw.indexOf(':');
  if (colon > 0) {
    const head = raw.slice(0, colon);
    let field: string | null = null;
    let range: RangeOp = 'eq';
    if (fields.has(head)) {
      field = head;
    } else {
      const dot = head.lastIndexOf('.');
      if (dot > 0 && RANGES.has(head.slice(dot + 1)) && fields.has(head.slice(0, dot))) {
        field = head.slice(0, dot);
        range = head.slice(dot + 1) as RangeOp;
      }
    }
    if (field !== null) {
      const rest = raw.slice(colon + 1);
      return { field, range, value: trimUnicode(rest), valueAt: colon + 1 + leadingSpace(rest) };
    }
  }
  return { field: null, range: 'eq', value: raw, valueAt: 0 };
}
