/**
 * The filter the workbench's query string gives inline (tag names or ids, complex expressions),
 * as a `FilterSpec` the search context compiles (contexts/search/filter-clauses.ts).
 */
import type { z } from 'zod';
import { FILTER_LISTS, type FilterSpec } from '../../contexts/search/filter-clauses.js';
import { tagsByName } from '../../contexts/tags/by-name.js';
import type { Database } from '../../db/client.js';
import { ApiError } from '../errors.js';
import type { workbenchQuery } from '../schemas/workbench.js';

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
