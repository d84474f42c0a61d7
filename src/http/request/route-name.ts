/**
 * The route a request is logged and counted under (the `route` field of its log line, the
 * `route` label of `http_requests_total` and `http_request_duration_seconds`): the pattern it
 * matched, e.g. `/api/v1/json/images/:image_id`.
 *
 * A few fixed names are answered inside a parameter's route (`/images/featured` inside
 * `/images/:image_id`: Hono's RegExpRouter cannot hold a fixed name beside a parameter in the same
 * place). Their handlers call `nameRoute`, so that they keep a series and a log route of their own,
 * as when they were routes of their own.
 */
import { routePath } from 'hono/route';
import type { AppContext } from '../env/context.js';

/** The request's route is its pattern with `:param` read as the fixed `name`. */
export function nameRoute(c: AppContext, param: string, name: string): void {
  c.set('routeName', routePath(c).replace(`:${param}`, name));
}

/** The route to log and count a request under; `unmatched` when no route matched. */
export function routeOf(c: AppContext): string {
  return c.get('routeName') ?? (routePath(c) || 'unmatched');
}
