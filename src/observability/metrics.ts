/**
 * Prometheus metrics. One registry per app instance (prom-client's global registry would throw
 * on a second instance in the same process, as in tests).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { CacheSeries } from './cache-series.js';
import { HttpRequestSeries } from './http-series.js';

export interface MetricsSources {
  /** Pending outbox rows and the age of the oldest, in seconds. */
  outboxLag?: () => Promise<{ pending: number; oldestSeconds: number }>;
  /** Jobs per state. */
  jobQueue?: () => Promise<{ queued: number; running: number; parked: number }>;
  /** Whether the media storage is refusing writes for want of space. */
  storageFull?: () => boolean;
}

export class Metrics {
  readonly registry = new Registry();
  /** `http_requests_total` and `http_request_duration_seconds`. */
  readonly http = new HttpRequestSeries(this.registry, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]);
  /** `tagwise_cache_*`, of the registries given to `caches.watch`. */
  readonly caches = new CacheSeries(this.registry);
  readonly searchDuration = new Histogram({
    name: 'search_duration_seconds',
    help: 'Search engine latency by engine and index',
    labelNames: ['engine', 'index'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly rateLimitRejections = new Counter({ name: 'rate_limit_rejections_total', help: 'Requests refused by the limiter', labelNames: ['budget', 'outcome'] as const, registers: [this.registry] });
  readonly databaseRestarts = new Counter({ name: 'embedded_postgres_restarts_total', help: 'Restarts of the embedded PostgreSQL after it died', registers: [this.registry] });
  readonly imageCacheWarmed = new Counter({ name: 'image_cache_warmed_images_total', help: 'Images loaded into the image cache by the warm start after start-up', registers: [this.registry] });
  readonly storageFullRefusals = new Counter({
    name: 'media_storage_full_refusals_total',
    help: 'Requests answered 507 because the media storage (disk, quota or bucket) was full',
    registers: [this.registry],
  });
  readonly jobFailures = new Counter({ name: 'job_failures_total', help: 'Failed job attempts by kind and outcome', labelNames: ['kind', 'outcome'] as const, registers: [this.registry] });

  constructor(sources: MetricsSources = {}) {
    collectDefaultMetrics({ register: this.registry });
    const { outboxLag, jobQueue, storageFull } = sources;
    if (storageFull) {
      new Gauge({
        name: 'media_storage_full',
        help: '1 while the media storage refuses writes for want of space (since the last refused write, until one succeeds)',
        registers: [this.registry],
        collect() {
          this.set(storageFull() ? 1 : 0);
        },
      });
    }
    if (outboxLag) {
      new Gauge({
        name: 'search_outbox_pending',
        help: 'Changes not yet applied to the search indices',
        registers: [this.registry],
        async collect() {
          this.set((await outboxLag()).pending);
        },
      });
      new Gauge({
        name: 'search_outbox_lag_seconds',
        help: 'Age of the oldest change not yet applied to the search indices',
        registers: [this.registry],
        async collect() {
          this.set((await outboxLag()).oldestSeconds);
        },
      });
    }
    if (jobQueue) {
      new Gauge({
        name: 'job_queue_depth',
        help: 'Background jobs by state',
        labelNames: ['state'] as const,
        registers: [this.registry],
        async collect() {
          const q = await jobQueue();
          this.set({ state: 'queued' }, q.queued);
          this.set({ state: 'running' }, q.running);
          this.set({ state: 'parked' }, q.parked);
        },
      });
    }
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
