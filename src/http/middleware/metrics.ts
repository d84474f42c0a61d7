/**
 * HTTP metrics: `http_requests_total` and `http_request_duration_seconds`, labelled by route
 * pattern (e.g. `/api/v1/json/images/:image_id`, never the raw path, so the number of series stays
 * small), method and status. Unknown methods are counted as `OTHER`.
 */
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Metrics } from '../../observability/metrics.js';
import type { AppEnv } from '../context.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function httpMetrics(metrics: Metrics): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      metrics.http.record(routePath(c) || 'unmatched', METHODS.has(c.req.method) ? c.req.method : 'OTHER', c.res.status, (performance.now() - started) / 1000);
    }
  };
}
