/**
 * GET /metrics after a few requests: Prometheus text, requests by route pattern (never raw ids),
 * latency histogram, rate-limit rejections, search outbox and job queue gauges.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJob } from '../../src/jobs/queue.js';
import { Metrics } from '../../src/observability/metrics.js';
import { freshIp, startOps, type OpsHarness } from './support.js';

/** The value of one sample line, e.g. `http_requests_total{route="/x",method="GET",status="200"}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^([^{ ]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

describe('/metrics', () => {
  let h: OpsHarness;
  beforeAll(async () => {
    h = await startOps({ env: { TRUST_PROXY: 'true', RATE_LIMIT_READ: '2/1h' } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('counts requests by route pattern, rate-limit rejections, the outbox and the job queue', async () => {
    for (const id of [1, 2, 3]) expect((await h.request(`/api/v1/json/images/${id}`, { ip: freshIp() })).status).toBe(404);
    expect((await h.request('/api/v1/json/tags/safe', { ip: freshIp() })).status).toBe(404);
    expect((await h.request('/img/2024/1/2/77/thumb.png', { ip: freshIp() })).status).toBe(404);
    const ip = freshIp();
    for (let i = 0; i < 2; i++) await h.request('/api/v1/json/images/9', { ip });
    expect((await h.request('/api/v1/json/images/9', { ip })).status).toBe(429);
    expect((await h.request('/healthz')).status).toBe(200);

    // three changes waiting for the indexer, the oldest a minute old; two queued jobs and a parked one
    await h.db.execute(sql`insert into search_outbox (index, record_id, created_at) values ('images', 1, now() - interval '60 seconds'), ('images', 2, now()), ('tags', 3, now())`);
    await enqueueJob(h.db, 'test-kind', { n: 1 });
    await enqueueJob(h.db, 'test-kind', { n: 2 });
    const parked = await enqueueJob(h.db, 'test-kind', { n: 3 });
    await h.db.execute(sql`update jobs set state = 'parked' where id = ${parked}`);

    const res = await h.request('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const text = await res.text();

    expect(sample(text, 'http_requests_total', { route: '/api/v1/json/images/:image_id', method: 'GET', status: '404' })).toBe(5);
    expect(sample(text, 'http_requests_total', { route: '/api/v1/json/tags/:tag_id', method: 'GET', status: '404' })).toBe(1);
    expect(sample(text, 'http_requests_total', { route: '/img/*', method: 'GET', status: '404' })).toBe(1);
    expect(sample(text, 'http_requests_total', { route: '/healthz', method: 'GET', status: '200' })).toBe(1);
    // the refused request never reached its route: it is counted where it was stopped
    expect(sample(text, 'http_requests_total', { route: '/api/v1/json/*', method: 'GET', status: '429' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/api/v1/json/images/:image_id', method: 'GET', status: '404' })).toBe(5);
    // no raw paths or ids in any label
    for (const m of text.matchAll(/route="([^"]*)"/g)) expect(m[1]).not.toMatch(/\/\d/);

    expect(sample(text, 'rate_limit_rejections_total', { budget: 'read', outcome: 'limited' })).toBe(1);
    expect(sample(text, 'search_outbox_pending')).toBe(3);
    expect(sample(text, 'search_outbox_lag_seconds')).toBeGreaterThanOrEqual(59);
    expect(sample(text, 'job_queue_depth', { state: 'queued' })).toBe(2);
    expect(sample(text, 'job_queue_depth', { state: 'parked' })).toBe(1);
    expect(sample(text, 'job_queue_depth', { state: 'running' })).toBe(0);
    // and the process's own
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts bans as rejections too', async () => {
    const ip = freshIp();
    await h.db.execute(sql`insert into bans (ip, reason) values (${ip}::cidr, 'test ban')`);
    expect((await h.request('/api/v1/json/images/1', { ip })).status).toBe(403);
    const text = await (await h.request('/metrics')).text();
    expect(sample(text, 'rate_limit_rejections_total', { budget: 'read', outcome: 'banned' })).toBe(1);
  });

  it('uses a registry per app: two apps in one process do not collide', () => {
    expect(() => [new Metrics(), new Metrics()]).not.toThrow();
  });
});

describe('/metrics with the database down', () => {
  it('still answers, with NaN for the database gauges', async () => {
    const h = await startOps();
    try {
      await h.db.$client.end({ timeout: 1 });
      const res = await h.request('/metrics');
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(sample(text, 'search_outbox_pending')).toBeNaN();
      expect(sample(text, 'job_queue_depth', { state: 'queued' })).toBeNaN();
    } finally {
      await h.close();
    }
  });
});
