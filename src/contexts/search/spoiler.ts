/**
 * The image `spoilered` flag (reference §5.4 and §4.1, with the intended OpenSearch semantics):
 * an image is spoilered by the current filter when
 *   (a) its tag ids meet the filter's spoilered or hidden tag ids, or
 *   (b) its index document (§2.2) matches the filter's hidden or spoilered complex expression,
 *       evaluated in process by the predicates of the filter as the search compiled it
 *       (`filter.ts`: the same compiled queries, kept once per filter and caller).
 * An expression that is empty or does not compile is ignored: it never spoilers everything.
 */
import { loadImageDocuments } from '../../search/indexes/images/document.js';
import type { FilterRow } from '../filters/types.js';
import type { UserRow } from '../users/types.js';
import type { SearchDeps } from './caller.js';
import { compiledFilterOf } from './filter.js';
import type { TagCheckMemo } from './tag-check-memo.js';

export interface SpoilerCandidate extends Partial<TagCheckMemo> {
  id: number;
  tagIds: ArrayLike<number>;
}

interface FilteredTags {
  tags: ReadonlySet<number>;
  /** Names this set in tag check memos: a number no other set had. */
  token: number;
}

/** A filter's spoilered and hidden tag ids, by row (rows are kept and shared between requests). */
const filteredTags = new WeakMap<FilterRow, FilteredTags>();
let lastToken = 0;

function filteredTagsOf(filter: FilterRow): FilteredTags {
  let filtered = filteredTags.get(filter);
  if (filtered === undefined) {
    filtered = { tags: new Set([...filter.spoileredTagIds, ...filter.hiddenTagIds]), token: ++lastToken };
    filteredTags.set(filter, filtered);
  }
  return filtered;
}

/** Whether any of the candidate's tags is in `filtered`, from its memo when it has one. */
function meetsTags(candidate: SpoilerCandidate, filtered: FilteredTags): boolean {
  const known = candidate.recallTagCheck?.(filtered.token);
  if (known !== undefined) return known;
  const { tagIds } = candidate;
  let meets = false;
  for (let i = 0; i < tagIds.length; i++) {
    if (filtered.tags.has(tagIds[i]!)) {
      meets = true;
      break;
    }
  }
  candidate.rememberTagCheck?.(filtered.token, meets);
  return meets;
}

/** Ids of the given images the filter spoilers. */
export async function spoileredImageIds(
  deps: Pick<SearchDeps, 'db'>,
  filter: FilterRow | null,
  user: UserRow | null,
  candidates: readonly SpoilerCandidate[],
): Promise<Set<number>> {
  const hit = new Set<number>();
  if (filter === null || candidates.length === 0) return hit;
  const filtered = filteredTagsOf(filter);
  const rest: number[] = [];
  for (const c of candidates) {
    if (meetsTags(c, filtered)) hit.add(c.id);
    else rest.push(c.id);
  }
  if (rest.length === 0) return hit;
  const predicates = compiledFilterOf(filter, user).predicates();
  if (predicates.length === 0) return hit;
  const docs = await loadImageDocuments(deps.db, rest);
  for (const doc of docs) {
    const matches = predicates.some((p) => {
      try {
        return p(doc);
      } catch {
        return false;
      }
    });
    if (matches) hit.add(doc.id);
  }
  return hit;
}
