/**
 * Filter rows kept between requests. Every request of the API is seen through a filter (the key
 * user's, or the system filter `Default` for anonymous callers), and reading that row was a query
 * on every search. Filters change rarely; any announced change to one (`filters:id`, see
 * `src/db/change-feed.ts`) empties this cache, so an edited filter applies from the next request.
 * It also starts again every minute, which bounds a change missed while the listening connection
 * reconnected.
 *
 * A row read again unchanged is handed out as the object it was before: what the app keeps by
 * row (anonymous searches' engine requests, spoiler checks, whole answers of images) stays valid, where
 * a new object every minute, or whenever any filter changed, made every page be built again.
 */
import type { RecordChange } from '../db/change-feed.js';
import type { FilterRow } from '../contexts/filters/types.js';
import { BoundedMap } from '../lib/bounded-map.js';
import { CacheRegistry, type CacheCounts } from './registry.js';

/** Rows kept at most; past that the least used go (there are few filters in use at once). */
const MAX_ROWS = 5_000;
const MAX_AGE_MS = 60_000;

export class FilterRowCache {
  private readonly rows = new BoundedMap<number, FilterRow | null>({ maxEntries: MAX_ROWS });
  private defaultRow: FilterRow | null | undefined = undefined;
  /** Bumped by every change heard: a read that overlapped one must not be kept. */
  private changeCount = 0;
  private startedAt: number;
  private readonly now: () => number;
  /** Every row handed out lately, by id: a row read again unchanged is this one. */
  private readonly handedOut = new BoundedMap<number, FilterRow>({ maxEntries: MAX_ROWS });
  private readonly counts: CacheCounts;

  constructor(now: () => number = Date.now, registry = new CacheRegistry()) {
    this.now = now;
    this.startedAt = now();
    const held = () => ({ entries: this.rows.size + (this.defaultRow === undefined ? 0 : 1) });
    this.counts = registry.register({ name: 'filter_rows', budget: { entries: MAX_ROWS + 1 }, invalidatedBy: ['filters', '*', `age ${MAX_AGE_MS / 1000} s`], held });
  }

  onChange(change: RecordChange): void {
    if (change.kind !== '*' && change.kind !== 'filters') return;
    this.changeCount++;
    this.empty();
  }

  private empty(): void {
    this.rows.clear();
    this.defaultRow = undefined;
    this.startedAt = this.now();
  }

  private expire(): void {
    if (this.now() - this.startedAt > MAX_AGE_MS) this.empty();
  }

  /** The filter with this id (null: there is none), read through `load` when not kept. */
  async byId(id: number, load: (id: number) => Promise<FilterRow | undefined>): Promise<FilterRow | null> {
    this.expire();
    const kept = this.rows.get(id);
    if (kept !== undefined) {
      this.counts.hit();
      return kept;
    }
    this.counts.miss();
    const mark = this.changeCount;
    const row = this.sameAsBefore((await load(id)) ?? null);
    if (mark === this.changeCount) this.rows.set(id, row);
    return row;
  }

  /** The system filter `Default` (null: there is none), read through `load` when not kept. */
  async defaultFilter(load: () => Promise<FilterRow | undefined>): Promise<FilterRow | null> {
    this.expire();
    if (this.defaultRow !== undefined) {
      this.counts.hit();
      return this.defaultRow;
    }
    this.counts.miss();
    const mark = this.changeCount;
    const row = this.sameAsBefore((await load()) ?? null);
    if (mark === this.changeCount) this.defaultRow = row;
    return row;
  }

  /** The row handed out before for the same filter when `row` equals it (every column), else `row`. */
  private sameAsBefore(row: FilterRow | null): FilterRow | null {
    if (row === null) return null;
    const before = this.handedOut.get(row.id);
    if (before !== undefined && JSON.stringify(before) === JSON.stringify(row)) return before;
    this.handedOut.set(row.id, row);
    return row;
  }
}
