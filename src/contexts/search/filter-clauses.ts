/**
 * A filter as the workbench checks it: its tag lists and its two complex expressions, each compiled
 * into a clause tree (grammar/clauses.ts) whose offsets point into the text the author wrote. The
 * filter is a saved one (by id) or one given inline in the query string, which is how an author
 * tries a filter before saving it (src/http/workbench/filter-rules.ts reads that).
 */
import { checkEachLine, clausePredicates, isQueryError, type ClauseMatch, type ClausePredicates } from '../../../grammar/index.js';
import { clauseTree } from '../../../grammar/compiler.js';
import { imageFields } from '../../search/indexes/images/fields.js';
import { imagesMapping } from '../../search/indexes/images/mapping.js';
import type { FilterRow } from '../filters/types.js';
import type { UserRow } from '../users/types.js';
import { queryRefused } from './errors.js';
import { multilineText } from './multiline.js';

export const FILTER_LISTS = ['hidden', 'spoilered'] as const;
export type FilterList = (typeof FILTER_LISTS)[number];

export interface FilterSpec {
  /** The saved filter's id; null for an inline one. */
  id: number | null;
  tagIds: Record<FilterList, readonly number[]>;
  complex: Record<FilterList, string>;
}

export const specOfRow = (row: FilterRow): FilterSpec => ({
  id: row.id,
  tagIds: { hidden: row.hiddenTagIds, spoilered: row.spoileredTagIds },
  complex: { hidden: row.hiddenComplexStr, spoilered: row.spoileredComplexStr },
});

/** One complex expression, ready to run: its clauses with offsets into the written text. */
export interface CompiledComplex {
  tree: ClausePredicates;
  toWritten(offset: number): number;
  written: string;
}

export interface CompiledFilter {
  spec: FilterSpec;
  tagSets: Record<FilterList, ReadonlySet<number>>;
  complex: Record<FilterList, CompiledComplex | null>;
}

/**
 * Compile both expressions as the caller would see them applied (their role's fields, the filter
 * context). A broken expression is a `SearchRequestError` (400) with its message, its place in the written text and
 * `parameter` naming which expression it is.
 */
export function compileFilter(spec: FilterSpec, user: UserRow | null, now: number): CompiledFilter {
  const complex = { hidden: null, spoilered: null } as Record<FilterList, CompiledComplex | null>;
  for (const list of FILTER_LISTS) {
    const written = spec.complex[list];
    const text = multilineText(written);
    if (text.normalized.trim() === '') continue;
    const options = { fields: imageFields, role: user?.role ?? 'anonymous', context: { filter: true, userId: user?.id ?? null, now } } as const;
    try {
      checkEachLine(written, (line) => clauseTree(line, options));
    } catch (err) {
      if (!isQueryError(err)) throw err;
      throw queryRefused(err, written, { parameter: `${list}_complex` });
    }
    try {
      const clauses = clauseTree(text.normalized, options);
      if (clauses === null) continue;
      const tree = clausePredicates(clauses, imagesMapping, { now: () => now });
      complex[list] = { tree, toWritten: text.toWritten, written };
    } catch (err) {
      if (!isQueryError(err)) throw err;
      throw queryRefused(err, written, { parameter: `${list}_complex` }, text.toWritten(err.position.offset));
    }
  }
  return {
    spec,
    tagSets: { hidden: new Set(spec.tagIds.hidden), spoilered: new Set(spec.tagIds.spoilered) },
    complex,
  };
}

/** A clause result with its offsets and text moved into the written text. */
export function inWrittenText<T extends { start: number; end: number; text: string; children: T[] }>(node: T, complex: CompiledComplex): T {
  const start = complex.toWritten(node.start);
  // The end is exclusive: map the last character and step past it.
  const end = node.end > node.start ? complex.toWritten(node.end - 1) + 1 : start;
  return { ...node, start, end, text: complex.written.slice(start, end), children: node.children.map((c) => inWrittenText(c, complex)) };
}

export type { ClauseMatch };
