/**
 * A filter as the workbench checks it: its tag lists and its two complex expressions, each compiled
 * into a clause tree (grammar/clauses.ts) whose offsets point into the text the author wrote. The
 * filter is a saved one (by id) or one given inline in the query string, which is how an author
 * tries a filter before saving it.
 */
import type { z } from 'zod';
import {
  checkEachLine,
  clausePredicates,
  clauseTree,
  isQueryError,
  type ClauseMatch,
  type ClausePredicates,
} from '../../../grammar/index.js';
import { tagsByName } from '../../contexts/tags/by-name.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import type { UserRow } from '../../contexts/users/types.js';
import type { Database } from '../../db/client.js';
import { imageFields } from '../../search/indexes/images/fields.js';
import { imagesMapping } from '../../search/indexes/images/mapping.js';
import { ApiError } from '../answers/errors.js';
import { queryApiError } from '../answers/query-error.js';
import type { workbenchQuery } from '../../api/schemas/workbench.js';
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

type InlineParams = Partial<Pick<z.output<typeof workbenchQuery.filterExplain>, 'hidden_tag_ids' | 'spoilered_tag_ids' | 'hidden_tags' | 'spoilered_tags' | 'hidden_complex' | 'spoilered_complex'>>;

/** Whether the query string gives any part of a filter inline. */
export const givesInlineFilter = (p: InlineParams): boolean =>
  FILTER_LISTS.some((list) => p[`${list}_tag_ids`] !== undefined || p[`${list}_tags`] !== undefined || p[`${list}_complex`] !== undefined);

/** The inline filter of the query string; a tag name no tag has is 400. */
export async function inlineSpec(db: Database, p: InlineParams): Promise<FilterSpec> {
  const tagIds = { hidden: [] as number[], spoilered: [] as number[] };
  for (const list of FILTER_LISTS) {
    const named = await tagsByName(db, p[`${list}_tags`] ?? '');
    if (named.unknown.length > 0) {
      throw new ApiError(400, `unknown tag${named.unknown.length > 1 ? 's' : ''} in ${list}_tags: ${named.unknown.join(', ')}`);
    }
    tagIds[list] = [...new Set([...(p[`${list}_tag_ids`] ?? []), ...named.ids.values()])];
  }
  return { id: null, tagIds, complex: { hidden: p.hidden_complex ?? '', spoilered: p.spoilered_complex ?? '' } };
}

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
 * context). A broken expression is 400 with its message, its place in the written text and
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
      throw queryApiError(err, written, { parameter: `${list}_complex` });
    }
    try {
      const clauses = clauseTree(text.normalized, options);
      if (clauses === null) continue;
      const tree = clausePredicates(clauses, imagesMapping, { now: () => now });
      complex[list] = { tree, toWritten: text.toWritten, written };
    } catch (err) {
      if (!isQueryError(err)) throw err;
      throw queryApiError(err, written, { parameter: `${list}_complex` }, text.toWritten(err.position.offset));
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
