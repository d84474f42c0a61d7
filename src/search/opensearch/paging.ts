/**
 * Pages of hits. Inside an index's `max_result_window` a page is one `from + size` request;
 * beyond it the page is reached with `search_after` (see `searchPastWindow`), which needs a sort
 * ending with the `id` tie-breaker for a total order.
 */
import type { API, Types } from '@opensearch-project/opensearch';
import type { SearchRequest, SearchResult } from '../engine.js';
import { asRecord } from './errors.js';

/** OpenSearch's default `index.max_result_window`: below it no settings lookup is needed. */
export const DEFAULT_RESULT_WINDOW = 10_000;

export interface Hit {
  _id?: string;
  sort?: Types.Common.SortResults;
}

export type SearchBody = API.Search_RequestBody;

/** One search request on the index being paged: its hits and (when tracked) the exact total. */
export type RawSearch = (body: SearchBody) => Promise<{ hits: Hit[]; total: number }>;

export function idsOf(hits: Hit[]): number[] {
  return hits.map((h) => Number(h._id));
}

export function checkPageParam(v: number | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`[${name}] must be a non-negative integer, got ${String(v)}`);
  return v;
}

function sortField(clause: unknown): string | undefined {
  if (typeof clause === 'string') return clause;
  const o = asRecord(clause);
  if (!o) return undefined;
  const keys = Object.keys(o);
  return keys.length === 1 ? keys[0] : undefined;
}

/** The smallest `max_result_window` in a `_settings` answer (of every index behind an alias). */
export function windowOfSettings(body: unknown, key: string): number {
  let window = Infinity;
  for (const state of Object.values(asRecord(body) ?? {})) {
    const s = asRecord(state) ?? {};
    const v = asRecord(s.settings)?.[key] ?? asRecord(s.defaults)?.[key];
    const n = Number(v ?? DEFAULT_RESULT_WINDOW);
    if (Number.isFinite(n)) window = Math.min(window, n);
  }
  return Number.isFinite(window) ? window : DEFAULT_RESULT_WINDOW;
}

export interface PastWindow {
  /** The physical index, for messages. */
  physical: string;
  base: SearchBody;
  sort: SearchRequest['sort'];
  from: number;
  size: number;
  window: number;
  /** Hits fetched per request while walking (at most the window). */
  deepPagingStep: number;
}

/**
 * A page beyond the result window: one request jumps to the last hit inside the window, further
 * requests walk `deepPagingStep` hits at a time, the last one returns the page. Not a point-in-time view:
 * writes landing during the walk can shift the page.
 */
export async function searchPastWindow(rawSearch: RawSearch, page: PastWindow): Promise<SearchResult> {
  const { physical, base, sort, from, size, window, deepPagingStep } = page;
  const last = sortField(sort?.at(-1));
  if (last !== 'id') {
    throw new Error(
      `page past the result window of [${physical}] (${window}, asked from ${from} size ${size}) ` +
        'needs a sort ending with the id tie-breaker',
    );
  }
  if (size > window) {
    throw new Error(`size ${size} exceeds the result window of [${physical}] (${window})`);
  }
  // 1. the last hit inside the window, and the exact total
  const jump = Math.min(from, window);
  const first = await rawSearch({
    ...base,
    from: jump - 1,
    size: 1,
    _source: false,
    track_total_hits: true,
  });
  const total = first.total;
  let cursor = first.hits[0]?.sort;
  if (from >= total || cursor === undefined) return { ids: [], total };
  // 2. walk the rest of the way
  let remaining = from - jump;
  const step = Math.min(window, deepPagingStep);
  while (remaining > 0) {
    const n = Math.min(step, remaining);
    const { hits } = await rawSearch({
      ...base,
      size: n,
      search_after: cursor,
      _source: false,
      track_total_hits: false,
    });
    cursor = hits[n - 1]?.sort;
    if (hits.length < n || cursor === undefined) return { ids: [], total };
    remaining -= n;
  }
  // 3. the page
  const { hits } = await rawSearch({
    ...base,
    size,
    search_after: cursor,
    _source: false,
    track_total_hits: false,
  });
  return { ids: idsOf(hits), total };
}
