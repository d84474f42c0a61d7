/**
 * Why a filter hides or spoilers one image: which of its tags the image has, and which clauses
 * of its complex expressions the image's index document matches (the evaluator of grammar/
 * runs each clause). The flags follow the API: an image is hidden by the hidden tags or the
 * hidden expression; its `spoilered` flag is set by anything of the filter (a hidden image shown
 * by id is spoilered too).
 */
import { matchClauses, type ClauseMatch, type Doc } from '../../../grammar/index.js';
import { FILTER_LISTS, inWrittenText, type CompiledFilter, type FilterList } from '../../contexts/search/filter-clauses.js';

export interface FilterPartExplanation {
  tag_ids: number[];
  complex: ClauseMatch | null;
  matched: boolean;
}

export interface FilterExplanation {
  hidden: boolean;
  spoilered: boolean;
  hidden_by: FilterPartExplanation;
  spoilered_by: FilterPartExplanation;
}

export function explainFilter(filter: CompiledFilter, doc: Doc & { tag_ids?: unknown }): FilterExplanation {
  const tagIds = Array.isArray(doc.tag_ids) ? (doc.tag_ids as number[]) : [];
  const part = (list: FilterList): FilterPartExplanation => {
    const set = filter.tagSets[list];
    const hits = tagIds.filter((id) => set.has(id));
    const complex = filter.complex[list];
    const clauses = complex === null ? null : inWrittenText(matchClauses(complex.tree, doc), complex);
    return { tag_ids: hits, complex: clauses, matched: hits.length > 0 || clauses?.matched === true };
  };
  const [hidden, spoilered] = FILTER_LISTS.map(part) as [FilterPartExplanation, FilterPartExplanation];
  return { hidden: hidden.matched, spoilered: hidden.matched || spoilered.matched, hidden_by: hidden, spoilered_by: spoilered };
}
