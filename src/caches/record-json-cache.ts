/**
 * Rendered JSON of records other than images (tags for search/tags, comments for
 * search/comments) kept between requests, each entry dropped exactly by the announced changes
 * (`src/db/record-change-feed.ts`) of what it was built from.
 *
 * Each entry names what it watches as `kind:id` keys (a tag: itself, its alias target, aliases,
 * implications and DNP entries; a comment: itself, its image, its author), and a change drops the
 * entries watching its key, found through an index of watchers: one change costs what it drops,
 * not a pass over the cache. Of a load that overlapped changes, the records watching one of them
 * are not kept (they may predate it), the others are (on a board edited every second most loads
 * overlap some change); `*` empties the cache. Bounded by bytes, the oldest not read lately
 * dropped first (`src/lib/bounded-map.ts`).
 */
import type { RecordChange } from '../db/record-change-feed.js';
import { BoundedMap } from '../lib/bounded-map.js';
import { CacheRegistry, type CacheCounts } from '../lib/cache-registry.js';

export interface RecordJson {
  id: number;
  /** The record's JSON text (`null` for a destroyed comment). */
  json: string;
  /** The `kind:id` changes that drop it. */
  watches: readonly string[];
}

/** A cache's name on `/metrics` and the change kinds its records watch. */
export interface RecordJsonPolicy {
  name: string;
  invalidatedBy: readonly string[];
}

/** Changes remembered for loads that overlapped them (a load that overlapped more keeps nothing). */
const RECENT_CHANGES = 1024;

/** What an entry costs besides its text (objects, watch keys, map slots), roughly. */
const ENTRY_OVERHEAD_BYTES = 300;

const bytesOf = (record: RecordJson) => ENTRY_OVERHEAD_BYTES + 2 * record.json.length + record.watches.reduce((n, w) => n + 40 + 2 * w.length, 0);

export class RecordJsonCache {
  private readonly entries: BoundedMap<number, RecordJson>;
  /** Who watches each key. */
  private readonly watchers = new Map<string, Set<number>>();
  private changeCount = 0;
  private readonly counts: CacheCounts;
  /** The `kind:id` of the last changes, by change number modulo `RECENT_CHANGES`. */
  private readonly recent: string[] = [];
  /** The number of the last `*`: no load from before it is kept. */
  private clearedAt = 0;

  constructor(maxBytes: number, policy: RecordJsonPolicy = { name: 'records', invalidatedBy: ['*'] }, registry = new CacheRegistry()) {
    this.entries = new BoundedMap({ maxBytes, sizeOf: bytesOf, onEvict: (id, record) => this.unwatch(id, record) });
    const held = () => ({ entries: this.entries.size, bytes: this.entries.bytes });
    this.counts = registry.register({ name: policy.name, budget: { bytes: maxBytes }, invalidatedBy: policy.invalidatedBy, held });
  }

  get size(): number {
    return this.entries.size;
  }

  /** A mark to hand back to `keep`: taken before loading from PostgreSQL. */
  mark(): number {
    return this.changeCount;
  }

  /** The JSON of the cached records among `ids`, and the ids to load. */
  lookup(ids: readonly number[]): { found: Map<number, string>; missing: number[] } {
    const found = new Map<number, string>();
    const missing: number[] = [];
    for (const id of ids) {
      const record = this.entries.get(id);
      if (record === undefined) missing.push(id);
      else found.set(id, record.json);
    }
    this.counts.hit(found.size);
    this.counts.miss(missing.length);
    return { found, missing };
  }

  /** Keep records loaded since `mark`, but those watching a change heard meanwhile. */
  keep(mark: number, records: readonly RecordJson[]): void {
    if (mark < this.clearedAt || this.changeCount - mark > RECENT_CHANGES) return;
    const heard = new Set<string>();
    for (let n = mark + 1; n <= this.changeCount; n++) heard.add(this.recent[n % RECENT_CHANGES]!);
    for (const record of records) {
      if (heard.size > 0 && record.watches.some((key) => heard.has(key))) continue;
      this.drop(record.id);
      if (!this.entries.set(record.id, record)) continue;
      for (const key of record.watches) {
        let set = this.watchers.get(key);
        if (set === undefined) this.watchers.set(key, (set = new Set()));
        set.add(record.id);
      }
    }
  }

  onChange(change: RecordChange): void {
    this.changeCount++;
    if (!('id' in change)) {
      this.clearedAt = this.changeCount;
      this.entries.clear();
      this.watchers.clear();
      return;
    }
    const key = `${change.kind}:${change.id}`;
    this.recent[this.changeCount % RECENT_CHANGES] = key;
    const watching = this.watchers.get(key);
    if (watching !== undefined) for (const id of [...watching]) this.drop(id);
  }

  private drop(id: number): void {
    const record = this.entries.peek(id);
    if (record === undefined) return;
    this.entries.delete(id);
    this.unwatch(id, record);
  }

  private unwatch(id: number, record: RecordJson): void {
    for (const key of record.watches) {
      const set = this.watchers.get(key);
      set?.delete(id);
      if (set?.size === 0) this.watchers.delete(key);
    }
  }
}

/**
 * The JSON of each id that exists, in the order of `ids`: cached records from `cache` (null: no
 * cache, while changes cannot be heard), the others through `load` (and kept).
 */
export async function cachedRecordJson(cache: RecordJsonCache | null, ids: readonly number[], load: (ids: number[]) => Promise<RecordJson[]>): Promise<string[]> {
  const { found, missing } = cache ? cache.lookup(ids) : { found: new Map<number, string>(), missing: [...ids] };
  if (missing.length > 0) {
    const mark = cache?.mark() ?? 0;
    const loaded = await load(missing);
    cache?.keep(mark, loaded);
    for (const record of loaded) found.set(record.id, record.json);
  }
  return ids.flatMap((id) => found.get(id) ?? []);
}
