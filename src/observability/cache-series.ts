/**
 * The caches' series, read from their registries (`src/caches/registry.ts`) at each scrape:
 * `tagwise_cache_hits_total` and `tagwise_cache_misses_total` (counters), `tagwise_cache_entries`,
 * `tagwise_cache_bytes` (for the caches that count bytes) and `tagwise_cache_budget` (labelled
 * with its `unit`, entries or bytes), each labelled by `cache`. A cache counts its hits in plain
 * numbers; they become samples only when scraped, as the HTTP series do (`http-series.ts`).
 */
import type { Registry } from 'prom-client';

/** What the series read of a registered cache (`RegisteredCache`). */
export interface CacheReport {
  name: string;
  budget: { entries: number } | { bytes: number };
  held: () => { entries: number; bytes?: number };
  counts: { hits: number; misses: number };
}

/** A registry of caches, as the series read it. */
export interface CacheSource {
  list(): readonly CacheReport[];
}

interface Sample {
  value: number;
  labels: Record<string, string>;
}

export class CacheSeries {
  private readonly sources = new Set<CacheSource>();

  constructor(registry: Registry) {
    const metrics = [
      metric('tagwise_cache_hits_total', 'Lookups a cache answered, by cache', 'counter', () => this.samples((c) => c.counts.hits)),
      metric('tagwise_cache_misses_total', 'Lookups a cache could not answer, by cache', 'counter', () => this.samples((c) => c.counts.misses)),
      metric('tagwise_cache_entries', 'Entries a cache holds, by cache', 'gauge', () => this.samples((c) => c.held().entries)),
      metric('tagwise_cache_bytes', 'Bytes a cache holds as it counts them, for the caches budgeted by bytes', 'gauge', () => this.samples((c) => c.held().bytes)),
      metric('tagwise_cache_budget', 'What a cache may hold, in entries or bytes (unit)', 'gauge', () => this.budgets()),
    ];
    // prom-client's typings list its own classes only; a registry reads no more than these fields
    for (const m of metrics) registry.registerMetric(m as unknown as Parameters<Registry['registerMetric']>[0]);
  }

  /** Report the caches of `source` too (again: no change). */
  watch(source: CacheSource): void {
    this.sources.add(source);
  }

  private caches(): CacheReport[] {
    return [...this.sources].flatMap((source) => source.list());
  }

  private samples(read: (cache: CacheReport) => number | undefined): Sample[] {
    const samples: Sample[] = [];
    for (const cache of this.caches()) {
      const value = read(cache);
      if (value !== undefined) samples.push({ value, labels: { cache: cache.name } });
    }
    return samples;
  }

  private budgets(): Sample[] {
    return this.caches().map(({ name, budget }) =>
      'bytes' in budget ? { value: budget.bytes, labels: { cache: name, unit: 'bytes' } } : { value: budget.entries, labels: { cache: name, unit: 'entries' } },
    );
  }
}

/** A metric as prom-client's registry reads one, its samples made at each read. */
function metric(name: string, help: string, type: 'counter' | 'gauge', values: () => Sample[]) {
  const data = () => Promise.resolve({ name, help, type, values: values(), aggregator: 'sum' as const });
  return { name, help, type, aggregator: 'sum' as const, get: data, getForPromString: data, reset: () => {} };
}
