/**
 * Every cache of the app, with its policy: its name, its budget (entries or bytes), the events
 * that invalidate it, and its hits and misses, served on `/metrics` (`src/observability/
 * cache-series.ts`: `tagwise_cache_hits_total{cache}`, `…_misses_total`, `…_entries`, `…_bytes`,
 * `…_budget{unit}`).
 *
 * Kept in `src/lib` beside the bounded map, importing nothing, so that any folder may register a
 * cache — the search context's included, which `src/caches` reads through (a registry in
 * `src/caches` would tie the two folders in a cycle).
 *
 * Each app's read caches (`src/caches/read-caches.ts`) register with the app's own registry, as
 * tests run several apps in one process; caches held by a module, one per process, register with
 * `processCaches`; the embedded search engine's with the engine's own (`EmbeddedEngine.caches`),
 * which its thread reports when asked (`CacheSource`, `EngineThread.caches`). Joining is one
 * call, in the cache's constructor or beside its module-level map:
 *
 *     const counts = registry.register({ name, budget, invalidatedBy, held: () => ({ entries }) });
 *     counts.hit(); counts.miss();
 *
 * `npm run check` (`tools/check/caches.ts`) fails a module under `src/` that holds a bounded cache
 * and registers none.
 */

/** What a cache may hold: a number of entries, or of bytes (as it counts them). */
export type CacheBudget = { entries: number } | { bytes: number };

export interface CacheSpec {
  /** Unique in its registry; the `cache` label of its series (snake_case). */
  name: string;
  /**
   * A function when it grows with what holds the cache: one entry stands for the caches of every
   * index (or field) of a search engine, their budget the sum of theirs.
   */
  budget: CacheBudget | (() => CacheBudget);
  /**
   * What drops its entries, besides room: announced change kinds (`images`, `user`, `*` for a
   * reconnect of the record-change feed, …; see `src/db/record-change-feed.ts`), or a plain phrase (`age 60 s`).
   * Empty for a cache of pure functions of their key.
   */
  invalidatedBy: readonly string[];
  /** What it holds now: entries, and bytes when it counts them. */
  held: () => { entries: number; bytes?: number };
}

/** A cache's hits and misses, counted by the cache where it decides one. */
export class CacheCounts {
  hits = 0;
  misses = 0;

  hit(n = 1): void {
    this.hits += n;
  }

  miss(n = 1): void {
    this.misses += n;
  }
}

export interface RegisteredCache extends CacheSpec {
  counts: CacheCounts;
}

/**
 * A cache as it stands, in plain data: what `/metrics` reads at a scrape, and what a search
 * engine on a thread of its own sends back when asked (`SearchEngine.caches`).
 */
export interface CacheSnapshot {
  name: string;
  budget: CacheBudget;
  entries: number;
  /** For the caches that count bytes. */
  bytes?: number;
  hits: number;
  misses: number;
}

/** Caches to report: a registry, or what answers for one on another thread. */
export interface CacheSource {
  report(): readonly CacheSnapshot[] | Promise<readonly CacheSnapshot[]>;
}

export class CacheRegistry implements CacheSource {
  private readonly caches = new Map<string, RegisteredCache>();

  /** Add a cache; its counts to count its hits and misses on. A name taken already is refused. */
  register(spec: CacheSpec): CacheCounts {
    if (!/^[a-z][a-z0-9_]*$/.test(spec.name)) throw new Error(`cache name ${JSON.stringify(spec.name)}: lower snake_case`);
    if (this.caches.has(spec.name)) throw new Error(`cache ${spec.name} is registered already`);
    const counts = new CacheCounts();
    this.caches.set(spec.name, { ...spec, counts });
    return counts;
  }

  list(): readonly RegisteredCache[] {
    return [...this.caches.values()];
  }

  /** Each cache as it stands now. */
  report(): CacheSnapshot[] {
    return this.list().map(({ name, budget, held, counts }) => {
      const { entries, bytes } = held();
      return { name, budget: typeof budget === 'function' ? budget() : budget, entries, ...(bytes === undefined ? {} : { bytes }), hits: counts.hits, misses: counts.misses };
    });
  }
}

/** The caches of which a process holds one (module-level maps). */
export const processCaches = new CacheRegistry();
