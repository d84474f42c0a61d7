/**
 * HTTP metrics: `http_requests_total` and `http_request_duration_seconds`, labelled by route
 * pattern (e.g. `/api/v1/json/images/:image_id`, never the raw path, so the number of series stays
 * small), method and status. Unknown methods are counted as `OTHER`. The request frame
 * (request-frame.ts) records each request when it ends.
 */
import type { Metrics } from '../../observability/metrics.js';
import type { AppContext } from '../env/context.js';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** One finished request under its route pattern; `started` is `performance.now()` at its start. */
export function recordRequest(metrics: Metrics, c: AppContext, route: string, started: number): void {
  const method = c.req.method;
  metrics.http.record(route, METHODS.has(method) ? method : 'OTHER', c.res.status, (performance.now() - started) / 1000);
}
