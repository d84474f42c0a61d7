/**
 * Compiled search-language text kept per process: the text of `q` (and of a filter's complex
 * expressions) is parsed and compiled once, not on every request that sends it again (the first
 * pages of popular tags, every request seen through the same filter).
 *
 * The key holds everything the compiled query depends on besides the text (index, the caller's
 * role and user id, the filter's id). Relative dates (`created_at.gte:3 days ago`) are resolved
 * when compiling, so an entry lives one second, the lag search answers are allowed anyway
 * (`SEARCH_MAX_AGE`); one that read no clock (see `ClockReading`) may be given longer.
 */
const TTL_MS = 1_000;
const MAX_ENTRIES = 4_096;

export class CompiledCache<T> {
  private readonly entries = new Map<string, { value: T; expires: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /**
   * The value kept under `key`, else `compile()`'s (kept; a throw is not), for `lifetimeMs` of
   * it when given, else a second; a lifetime of 0 keeps it not at all.
   */
  get(key: string, compile: () => T, lifetimeMs?: (value: T) => number | undefined): T {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit !== undefined && hit.expires > now) return hit.value;
    const value = compile();
    const lifetime = lifetimeMs?.(value) ?? TTL_MS;
    // a value kept not at all takes no place (nor pushes the others out when the map is full)
    if (lifetime <= 0) {
      if (hit !== undefined) this.entries.delete(key);
      return value;
    }
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
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
