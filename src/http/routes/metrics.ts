/**
 * GET /metrics: the app's Prometheus metrics in the text exposition format — HTTP requests and
 * latency by route, rate-limit rejections, the search outbox (pending changes, age of the oldest),
 * the job queue by state, media storage refusing writes for want of space, each cache's hits, misses, entries and budget
 * (`tagwise_cache_*`), and the process's own (memory, event loop lag, …). Never cached.
 * Operators who do not want it public should keep it off their proxy's public routes.
 */
import { Hono } from 'hono';
import { outboxLag } from '../../contexts/indexing/outbox-lag.js';
import type { Database } from '../../db/client.js';
import { queueStats } from '../../jobs/queue.js';
import type { StorageHealth } from '../../media/storage.js';
import { Metrics } from '../../observability/metrics.js';
import { withTimeout } from '../../lib/with-timeout.js';
import type { AppEnv, IndexerLag } from '../context.js';

export function metricsRoutes(metrics: Metrics): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/metrics', async (c) => {
    const body = await metrics.render();
    return c.body(body, 200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' });
  });
  return app;
}

/**
 * The metrics of an app over `db`: outbox (from `lag`, default the whole outbox) and job-queue
 * gauges read at scrape time. A source that fails (database down) reports NaN rather than
 * failing the whole scrape.
 */
export function createAppMetrics(db: Database, lag: () => Promise<IndexerLag> = () => outboxLag(db), storage?: StorageHealth): Metrics {
  return new Metrics({
    ...(storage ? { storageFull: () => storage.full } : {}),
    outboxLag: async () => {
      try {
        const current = await withTimeout(lag(), 2_000, 'outbox lag');
        return { pending: current.pending, oldestSeconds: current.oldestAgeSeconds ?? 0 };
      } catch {
        return { pending: Number.NaN, oldestSeconds: Number.NaN };
      }
    },
    jobQueue: async () => {
      try {
        return await withTimeout(queueStats(db), 2_000, 'job queue');
      } catch {
        return { queued: Number.NaN, running: Number.NaN, parked: Number.NaN };
      }
    },
  });
}
