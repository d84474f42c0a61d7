/**
 * The caches' series, read from their registries (`src/lib/cache-registry.ts`) at each scrape:
 * `tagwise_cache_hits_total` and `tagwise_cache_misses_total` (counters), `tagwise_cache_entries`,
 * `tagwise_cache_bytes` (for the caches that count bytes) and `tagwise_cache_budget` (labelled
 * with its `unit`, entries or bytes), each labelled by `cache`. A cache counts its hits in plain
 * numbers; they become samples only when scraped, as the HTTP series do (`http-series.ts`).
 *
 * A source may answer later (`CacheSource.report` returning a promise): the embedded search
 * engine on its own thread sends its caches back when asked, once for the five series of a
 * scrape (`EngineThread.caches`).
 */
import type { Registry } from 'prom-client';
import type { CacheSnapshot, CacheSource } from '../lib/cache-registry.js';
import { withTimeout } from '../lib/with-timeout.js';

/** How long a scrape waits for a source that answers later (a search engine's thread busy with a write). */
const REPORT_TIMEOUT_MS = 2_000;

interface Sample {
  value: number;
  labels: Record<string, string>;
}

export class CacheSeries {
  private readonly sources = new Set<CacheSource>();

  constructor(registry: Registry) {
    const metrics = [
      metric('tagwise_cache_hits_total', 'Lookups a cache answered, by cache', 'counter', async () => samples(await this.caches(), (c) => c.hits)),
      metric('tagwise_cache_misses_total', 'Lookups a cache could not answer, by cache', 'counter', async () => samples(await this.caches(), (c) => c.misses)),
      metric('tagwise_cache_entries', 'Entries a cache holds, by cache', 'gauge', async () => samples(await this.caches(), (c) => c.entries)),
      metric('tagwise_cache_bytes', 'Bytes a cache holds as it counts them, for the caches budgeted by bytes', 'gauge', async () => samples(await this.caches(), (c) => c.bytes)),
      metric('tagwise_cache_budget', 'What a cache may hold, in entries or bytes (unit)', 'gauge', async () => budgets(await this.caches())),
    ];
    // prom-client's typings list its own classes only; a registry reads no more than these fields
    for (const m of metrics) registry.registerMetric(m as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** Report the caches of `source` too (again: no change). */
  watch(source: CacheSource): void {
    this.sources.add(source);
  }

  /**
   * Every watched cache as it stands. A source that fails or does not answer in time (a stopped
   * or busy engine thread) reports nothing this scrape rather than failing it.
   */
  private async caches(): Promise<CacheSnapshot[]> {
    const reports = await Promise.all(
      [...this.sources].map(async (source) => {
        try {
          const report = source.report();
          return Array.isArray(report) ? report : await withTimeout(Promise.resolve(report), REPORT_TIMEOUT_MS, 'cache report');
        } catch {
          return [];
        }
      }),
    );
    return reports.flat();
  }
}

function samples(caches: readonly CacheSnapshot[], read: (cache: CacheSnapshot) => number | undefined): Sample[] {
  const out: Sample[] = [];
  for (const cache of caches) {
    const value = read(cache);
    if (value !== undefined) out.push({ value, labels: { cache: cache.name } });
  }
  return out;
}

function budgets(caches: readonly CacheSnapshot[]): Sample[] {
  return caches.map(({ name, budget }) =>
    'bytes' in budget ? { value: budget.bytes, labels: { cache: name, unit: 'bytes' } } : { value: budget.entries, labels: { cache: name, unit: 'entries' } },
  );
}

/** A metric as prom-client's registry reads one, its samples made at each read. */
function metric(name: string, help: string, type: 'counter' | 'gauge', values: () => Promise<Sample[]>) {
  const data = async () => ({ name, help, type, values: await values(), aggregator: 'sum' as const });
  return { name, help, type, aggregator: 'sum' as const, get: data, getForPromString: data, reset: () => {} };
}
