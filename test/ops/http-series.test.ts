/**
 * The HTTP request series write the exposition prom-client's own Counter and Histogram write for
 * the same requests: those, fed the same observations in a registry of their own, are the oracle.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { HttpRequestSeries } from '../../src/observability/http-series.js';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

function oracle() {
  const registry = new Registry();
  const labelNames = ['route', 'method', 'status'] as const;
  const counter = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route, method and status', labelNames, registers: [registry] });
  const histogram = new Histogram({ name: 'http_request_duration_seconds', help: 'HTTP request latency by route', labelNames, buckets: BOUNDS, registers: [registry] });
  return {
    registry,
    record(route: string, method: string, status: number, seconds: number) {
      const labels = { route, method, status: String(status) };
      counter.inc(labels);
      histogram.observe(labels, seconds);
    },
  };
}

describe('HTTP request series', () => {
  it('expose what prom-client exposes for the same requests', async () => {
    const expected = oracle();
    const registry = new Registry();
    const series = new HttpRequestSeries(registry, BOUNDS);
    const routes = ['/api/v1/json/images/:image_id', '/api/v1/json/search/images', 'unmatched', '/a "quoted" \\ route'];
    // seconds on the bounds, between them, below the first and above the last
    const seconds = [0, 0.0005, 0.001, 0.0011, 0.0025, 0.007, 0.05, 0.3, 1, 2.5, 2.6, 30];
    for (let i = 0; i < 200; i++) {
      const args = [routes[i % routes.length]!, i % 7 === 0 ? 'POST' : 'GET', i % 5 === 0 ? 404 : 200, seconds[i % seconds.length]! * (1 + (i % 3) / 1000)] as const;
      expected.record(...args);
      series.record(...args);
    }
    expect(await registry.metrics()).toBe(await expected.registry.metrics());
    // prom-client's samples carry `exemplar: undefined`, which JSON drops
    const json = async (r: Registry) => JSON.parse(JSON.stringify(await r.getMetricsAsJSON())) as unknown;
    expect(await json(registry)).toEqual(await json(expected.registry));
  });

  it('start again from nothing when the registry is reset', async () => {
    const registry = new Registry();
    const series = new HttpRequestSeries(registry, BOUNDS);
    series.record('/x', 'GET', 200, 0.002);
    registry.resetMetrics();
    expect(await registry.metrics()).toBe(await oracle().registry.metrics());
  });
});
