/**
 * The image `spoilered` flag (reference §5.4 and §4.1, with the intended OpenSearch semantics):
 * an image is spoilered by the current filter when
 *   (a) its tag ids meet the filter's spoilered or hidden tag ids, or
 *   (b) its index document (§2.2) matches the filter's hidden or spoilered complex expression,
 *       compiled by the grammar for the images index and evaluated in process.
 * An expression that is empty or does not compile is ignored: it never spoilers everything.
 */
import { compileEvaluator, type DocPredicate } from '../../grammar/index.js';
import { imagesMapping } from '../search/indexes/images/mapping.js';
import { loadImageDocuments } from '../search/indexes/images/document.js';
import type { AppDeps } from './env/context.js';
import { compileComplexFilter } from './filter-query.js';
import type { FilterRow } from '../contexts/filters/types.js';
import type { UserRow } from '../contexts/users/types.js';
import type { TagCheckMemo } from './tag-check-memo.js';

export interface SpoilerCandidate extends Partial<TagCheckMemo> {
  id: number;
  tagIds: ArrayLike<number>;
}

/**
 * Compiled expressions, by source and caller (fields and `my:` depend on who asks). Entries
 * expire after a minute, so relative dates (`created_at.gt:3 days ago`) move with the clock.
 */
const predicateCache = new Map<string, { at: number; predicate: DocPredicate | null }>();
const CACHE_LIMIT = 512;
const CACHE_TTL_MS = 60_000;

/** A predicate for one complex expression, or null when it is empty or unusable. */
function complexPredicate(source: string, user: UserRow | null): DocPredicate | null {
  if (source.trim() === '') return null;
  const key = `${user?.id ?? 0}\u0000${user?.role ?? 'anonymous'}\u0000${source}`;
  const now = Date.now();
  const cached = predicateCache.get(key);
  if (cached !== undefined && now - cached.at < CACHE_TTL_MS) return cached.predicate;
  let predicate: DocPredicate | null = null;
  const query = compileComplexFilter(source, user, now);
  if (query !== null) {
    try {
      predicate = compileEvaluator(query, imagesMapping, { now: () => now });
    } catch {
      predicate = null;
    }
  }
  predicateCache.delete(key);
  if (predicateCache.size >= CACHE_LIMIT) predicateCache.delete(predicateCache.keys().next().value!);
  predicateCache.set(key, { at: now, predicate });
  return predicate;
}

/** The usable complex expressions of a filter (hidden, then spoilered). */
export function complexPredicates(filter: FilterRow, user: UserRow | null): DocPredicate[] {
  return [filter.hiddenComplexStr, filter.spoileredComplexStr]
    .map((source) => complexPredicate(source, user))
    .filter((p): p is DocPredicate => p !== null);
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
  deps: Pick<AppDeps, 'db'>,
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
  const predicates = complexPredicates(filter, user);
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
