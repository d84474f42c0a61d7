/**
 * A filter compiled for a caller, once: its hidden and spoilered complex expressions compiled for
 * the images index (multi-line strings become an OR of their lines, reference §1.9; fields of the
 * caller's role; the filter context, where `filter_id:` is not allowed), what it hides as the
 * image request takes it, and the predicates spoilers are decided by, derived from the same
 * compiled queries. Searches (`plan.ts`), reverse searches and spoiler flags (`spoiler.ts`) all
 * read it here, so one request compiles its filter once.
 *
 * An expression that is empty or does not compile is left out: the API ignores it rather than
 * letting it hide or spoiler every image (a deliberate fix of the reference, §3.2); a hidden one
 * that does not compile is reported once.
 */
import { compileEvaluator, normalizeMultiline, type DocPredicate, type Query } from '../../../grammar/index.js';
import { compileQuery } from '../../../grammar/compiler.js';
import { imageFields } from '../../search/indexes/images/fields.js';
import { imagesMapping } from '../../search/indexes/images/mapping.js';
import type { HiddenByFilter } from '../../search/requests/index.js';
import type { FilterRow } from '../filters/types.js';
import type { UserRow } from '../users/types.js';
import type { SearchDeps } from './caller.js';
import { BoundedMap } from '../../lib/bounded-map.js';
import { processCaches } from '../../lib/cache-registry.js';
import { ClockReading, CompiledCache } from './compiled-cache.js';
import { lifetimeOf } from './compile.js';

/** A complex expression compiled for `user`; null when it is empty or does not compile. */
export function compileComplexFilter(source: string, user: UserRow | null, now?: number | Date): Query | null {
  const normalized = normalizeMultiline(source);
  if (normalized.trim() === '') return null;
  try {
    return compileQuery(normalized, {
      fields: imageFields,
      role: user?.role ?? 'anonymous',
      context: { filter: true, userId: user?.id ?? null, ...(now === undefined ? {} : { now }) },
    });
  } catch {
    // A QueryError for bad syntax or values; whatever it is, a broken filter must not break the
    // image answer.
    return null;
  }
}

/** A filter's complex expressions compiled (its tag lists are read from the row itself, which may be newer). */
export interface CompiledFilter {
  /** The hidden complex expression, or null. */
  readonly hiddenComplex: Query | null;
  /** No date in its expressions was resolved against the clock. */
  readonly clockFree: boolean;
  /** The usable complex expressions (hidden, then spoilered) as in-process predicates, made on first use. */
  predicates(): readonly DocPredicate[];
}

/** The evaluator of `query`, or null when it cannot be evaluated in process. */
function predicateOf(query: Query | null, at: number): DocPredicate | null {
  if (query === null) return null;
  try {
    return compileEvaluator(query, imagesMapping, { now: () => at });
  } catch {
    return null;
  }
}

function compileFilterFor(filter: FilterRow, user: UserRow | null): CompiledFilter {
  const at = Date.now();
  const clock = new ClockReading(at);
  const hiddenComplex = compileComplexFilter(filter.hiddenComplexStr, user, clock);
  const spoileredComplex = compileComplexFilter(filter.spoileredComplexStr, user, clock);
  let predicates: DocPredicate[] | undefined;
  const compiled: CompiledFilter = {
    hiddenComplex,
    clockFree: !clock.read,
    predicates() {
      predicates ??= [predicateOf(hiddenComplex, at), predicateOf(spoileredComplex, at)].filter((p): p is DocPredicate => p !== null);
      return predicates;
    },
  };
  return compiled;
}

/**
 * Filters compiled, by filter, its two expressions and the caller (fields and `my:` depend on who
 * asks): a minute when no relative date was resolved, else a second, so such dates move with the clock.
 */
const compiledFilters = new CompiledCache<CompiledFilter>('search_compiled_filters');

/** `filter` compiled for `user` (kept, see `compiledFilters`). */
export function compiledFilterOf(filter: FilterRow, user: UserRow | null): CompiledFilter {
  const key = `${filter.id}\u0000${user?.role ?? ''}\u0000${user?.id ?? ''}\u0000${filter.hiddenComplexStr}\u0000${filter.spoileredComplexStr}`;
  return compiledFilters.get(key, () => compileFilterFor(filter, user), lifetimeOf);
}

/**
 * Filters whose broken hidden expression was already reported (by id and text), so that a broken
 * filter is logged once, not on every search through it; one forgotten is only logged again.
 */
const MAX_REPORTED = 1_000;
const reportedBrokenFilters = new BoundedMap<string, true>({ maxEntries: MAX_REPORTED });
const reportedCounts = processCaches.register({
  name: 'search_reported_broken_filters',
  budget: { entries: MAX_REPORTED },
  invalidatedBy: [],
  held: () => ({ entries: reportedBrokenFilters.size }),
});

function reportBroken(deps: Pick<SearchDeps, 'logger'>, filter: FilterRow): void {
  const key = `${filter.id}\u0000${filter.hiddenComplexStr}`;
  if (reportedBrokenFilters.has(key)) {
    reportedCounts.hit();
    return;
  }
  reportedCounts.miss();
  reportedBrokenFilters.set(key, true);
  const log = deps.logger?.warn?.bind(deps.logger) ?? ((obj: unknown, msg?: string) => console.warn(msg, obj));
  log({ filterId: filter.id, hiddenComplex: filter.hiddenComplexStr }, 'hidden complex filter does not compile; ignored');
}

/**
 * What the current filter hides: its hidden tags and its hidden complex expression, compiled for
 * the caller. An expression that does not compile is ignored and reported.
 */
export function hiddenBy(deps: Pick<SearchDeps, 'logger'>, filter: FilterRow | null, user: UserRow | null): HiddenByFilter[] {
  if (filter === null) return [];
  const { hiddenComplex } = compiledFilterOf(filter, user);
  if (hiddenComplex === null && filter.hiddenComplexStr.trim() !== '') reportBroken(deps, filter);
  return [{ tagIds: filter.hiddenTagIds, complex: hiddenComplex ?? { match_none: {} } }];
}
