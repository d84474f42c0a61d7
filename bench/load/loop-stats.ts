/**
 * The service's own view of a phase, read from its `/metrics` (prom-client's default metrics):
 * the main thread's event-loop delay (`perf_hooks.monitorEventLoopDelay`, whose histogram
 * prom-client resets at every scrape, so a scrape before the phase and one after give the
 * phase's p99 and max) and the time spent in garbage collection by kind (sums read twice).
 */
export interface LoopStats {
  /** Event-loop delay of the main thread over the phase, ms. */
  loopP99Ms: number;
  loopMaxMs: number;
  /** Main-thread GC time during the phase, ms, by kind (minor, major, incremental, weakcb). */
  gcMs: Record<string, number>;
  /** Misses of each of the service's caches during the phase (`tagwise_cache_misses_total`). */
  cacheMisses: Record<string, number>;
}

interface Scrape {
  values: Map<string, number>;
}

async function scrape(origin: string): Promise<Scrape> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const space = line.lastIndexOf(' ');
    values.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return { values };
}

/** Scrape now (which also starts a new event-loop histogram); `end()` reads the phase's figures. */
export async function loopStatsFrom(origin: string): Promise<{ end(): Promise<LoopStats> }> {
  const before = await scrape(origin);
  return {
    async end() {
      const after = await scrape(origin);
      const gcMs: Record<string, number> = {};
      for (const [name, value] of after.values) {
        const m = /^nodejs_gc_duration_seconds_sum\{kind="([a-z]+)"\}$/.exec(name);
        if (m) gcMs[m[1]!] = (value - (before.values.get(name) ?? 0)) * 1000;
      }
      const cacheMisses: Record<string, number> = {};
      for (const [name, value] of after.values) {
        const m = /^tagwise_cache_misses_total\{cache="([a-z_]+)"\}$/.exec(name);
        if (m) cacheMisses[m[1]!] = value - (before.values.get(name) ?? 0);
      }
      return {
        cacheMisses,
        loopP99Ms: (after.values.get('nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
        loopMaxMs: (after.values.get('nodejs_eventloop_lag_max_seconds') ?? Number.NaN) * 1000,
        gcMs,
      };
    },
  };
}
