/**
 * Compiled search-language text kept per process: the text of `q` (and of a filter's complex
 * expressions) is parsed and compiled once, not on every request that sends it again (the first
 * pages of popular tags, every request seen through the same filter).
 *
 * The key holds everything the compiled query depends on besides the text (index, the caller's
 * role and user id, the filter's id). Relative dates (`created_at.gte:3 days ago`) are resolved
 * when compiling, so an entry lives one second, the lag search answers are allowed anyway
 * (`SEARCH_MAX_AGE`); one that read no clock (see `ClockReading`) may be given longer.
 *
 * Each cache registers under its name (`src/lib/cache-registry.ts`; the search context's are
 * held once per process, so `processCaches` by default): a hit is a value found still fresh.
 */
import { BoundedMap } from '../../lib/bounded-map.js';
import { type CacheCounts, type CacheRegistry, processCaches } from '../../lib/cache-registry.js';

const TTL_MS = 1_000;
export const MAX_COMPILED_ENTRIES = 4_096;

export interface CompiledCacheOptions {
  /** Where it registers; default `processCaches`. */
  registry?: CacheRegistry;
  now?: () => number;
}

export class CompiledCache<T> {
  private readonly entries = new BoundedMap<string, { value: T; expires: number }>({ maxEntries: MAX_COMPILED_ENTRIES });
  private readonly counts: CacheCounts;
  private readonly now: () => number;

  constructor(name: string, options: CompiledCacheOptions = {}) {
    // read through `Date` at each call, so a test's fake clock reaches the module's own caches
    this.now = options.now ?? (() => Date.now());
    // Nothing invalidates an entry but its age: the key holds all the value depends on.
    this.counts = (options.registry ?? processCaches).register({
      name,
      budget: { entries: MAX_COMPILED_ENTRIES },
      invalidatedBy: [`age ${TTL_MS / 1000} s (longer when no clock was read)`],
      held: () => ({ entries: this.entries.size }),
    });
  }

  /**
   * The value kept under `key`, else `compile()`'s (kept; a throw is not), for `lifetimeMs` of
   * it when given, else a second; a lifetime of 0 keeps it not at all. When the kept value's time
   * is up and `same` finds the one compiled again equal to it, the kept value lives on in its
   * place: other caches key their entries by its identity (a page of images by its request), and
   * a value that did not change must not take their entries with it.
   */
  get(key: string, compile: () => T, lifetimeMs?: (value: T) => number | undefined, same?: (kept: T, fresh: T) => boolean): T {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit !== undefined && hit.expires > now) {
      this.counts.hit();
      return hit.value;
    }
    this.counts.miss();
    const fresh = compile();
    const value = hit !== undefined && same?.(hit.value, fresh) ? hit.value : fresh;
    const lifetime = lifetimeMs?.(value) ?? TTL_MS;
    // a value kept not at all takes no place (nor pushes the others out when the map is full)
    if (lifetime <= 0) {
      if (hit !== undefined) this.entries.delete(key);
      return value;
    }
    this.entries.set(key, { value, expires: now + lifetime });
    return value;
  }
}

/**
 * The clock a compilation is given (`QueryContext.now`), telling afterwards whether it was read:
 * the compiler reads it for date values only, so a query compiled without reading it is the same
 * at any time.
 */
export class ClockReading extends Date {
  read = false;

  override getTime(): number {
    this.read = true;
    return super.getTime();
  }
}
