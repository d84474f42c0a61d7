/**
 * Field names of the query language as completions: `score:` and, for fields that compare,
 * `score.gt:`, `score.gte:`, `score.lt:`, `score.lte:`. Only the fields the caller's role may
 * use; the default field (`tags` on images) is left out, since a bare term already means it.
 */
import { fieldsForRole, type FieldSet, type Role } from '../../../grammar/index.js';

const RANGED = new Set(['int', 'float', 'numeric', 'date', 'ip']);
const OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;

/** Every completion of one field set for one role, in field order. */
const cache = new WeakMap<FieldSet, Map<Role, string[]>>();

function completions(set: FieldSet, role: Role): string[] {
  let byRole = cache.get(set);
  if (byRole === undefined) cache.set(set, (byRole = new Map()));
  let list = byRole.get(role);
  if (list === undefined) {
    list = [];
    for (const [name, spec] of fieldsForRole(set, role).byName) {
      if (spec === set.defaultField) continue;
      list.push(`${name}:`);
      if (RANGED.has(spec.type)) for (const op of OPERATORS) list.push(`${name}.${op}:`);
    }
    byRole.set(role, list);
  }
  return list;
}

/** Up to `limit` completions starting with `term` (at least two characters), shortest first. */
export function suggestFields(set: FieldSet, role: Role, term: string, limit: number): string[] {
  if (term.length < 2) return [];
  return completions(set, role)
    .filter((c) => c.startsWith(term) && c !== term)
    .sort((a, b) => a.length - b.length || (a < b ? -1 : 1))
    .slice(0, limit);
}
