/**
 * The one middleware around every request: the steps each concern's module offers, in the order
 * the app has always taken them, run in one layer (each layer of Hono's middleware is another
 * closure, promise and frame of its chain, paid by every request).
 *
 * Before the route: the request id and logger (request-log.ts), the app's dependencies, a CORS
 * preflight answered at once (cache.ts), and the request limits of the stored files (limits.ts).
 * After it: the cache headers (cache.ts), the caches caught up after a write
 * (read-your-writes.ts), the request id on the answer, the metrics (metrics.ts) and the log line.
 */
import type { MiddlewareHandler } from 'hono';
import type { Metrics } from '../../observability/metrics.js';
import type { RecordChangeFeed } from '../../db/record-change-feed.js';
import type { AppDeps, AppEnv } from '../env/context.js';
import { routeOf } from '../request/route-name.js';
import { finishCacheHeaders, preflightAnswer } from './cache.js';
import type { LimitCheck } from './limits.js';
import { recordRequest } from './metrics.js';
import { catchUpAfterWrite } from './read-your-writes.js';
import { RequestLog } from './request-log.js';

export interface RequestFrameOptions {
  deps: AppDeps;
  metrics: Metrics;
  feed: RecordChangeFeed;
  /** The limits of the stored files; undefined when nothing is checked. */
  fileLimits: LimitCheck | undefined;
}

export function requestFrame({ deps, metrics, feed, fileLimits }: RequestFrameOptions): MiddlewareHandler<AppEnv> {
  const log = new RequestLog(deps.logger);
  return async (c, next) => {
    const started = performance.now();
    const reqId = log.begin(c);
    c.set('deps', deps);
    c.set('cachePolicy', undefined);
    c.set('routeName', undefined);
    try {
      const method = c.req.method;
      if (method === 'OPTIONS') {
        c.res = preflightAnswer(c);
      } else {
        const refusal = fileLimits?.(c);
        const refused = refusal instanceof Promise ? await refusal : refusal;
        if (refused) c.res = refused;
        else await next();
        const headers = finishCacheHeaders(c);
        if (headers) await headers;
        const caughtUp = catchUpAfterWrite(feed, method);
        if (caughtUp) await caughtUp;
      }
    } finally {
      log.stamp(c, reqId);
      const route = routeOf(c);
      recordRequest(metrics, c, route, started);
      log.write(c, reqId, route, started);
    }
  };
}
