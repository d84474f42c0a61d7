/**
 * What a caller tells the compiler about the person searching. Pure data and synchronous
 * lookups: the compiler never does I/O, so the caller loads what the query needs first (for
 * `filter_id:`, the filters named in the query; see `filterIdsIn`).
 */

/** The searcher's watch list, for images `my:watched`. */
export interface WatchList {
  /** IDs of the watched tags. */
  tagIds: readonly number[];
  /** The user's "watched images" query string (multi-line allowed). */
  include?: string | null;
  /** The user's "exclude from watched" query string (multi-line allowed). */
  exclude?: string | null;
  /** Set when the user hides spoilered images from the watch list: the current filter's spoilers. */
  spoilered?: { tagIds: readonly number[]; complex?: string | null } | null;
}

/** A filter the searcher may use, for images `filter_id:`. */
export interface FilterRule {
  hiddenTagIds: readonly number[];
  /** The filter's hidden complex string (multi-line allowed). */
  hiddenComplex?: string | null;
}

export interface QueryContext {
  /** The searcher's user ID; absent for anonymous searches. */
  userId?: number | null;
  /** The searcher's watch list; absent means empty. */
  watchList?: WatchList | null;
  /** Filters the searcher may use, by ID; `undefined` for an unknown or invisible filter. */
  filters?: ((id: number) => FilterRule | undefined) | null;
  /** Current time for relative dates, in milliseconds since the epoch (or a Date). Defaults to the clock. */
  now?: number | Date;
  /** Set while compiling a watch-list string: `my:watched` is then an error. */
  watch?: boolean;
  /** Set while compiling a filter's own complex string: `filter_id:` is then an error. */
  filter?: boolean;
}

/** IDs named as `filter_id:N` in a query (the reference's `\bfilter_id:(\d+)` scan), so the caller can load them. */
export function filterIdsIn(query: string): number[] {
  const ids = new Set<number>();
  for (const m of query.matchAll(/\bfilter_id:(\d+)/g)) {
    const id = Number(m[1]);
    if (id <= 2_147_483_647) ids.add(id);
  }
  return [...ids];
}
