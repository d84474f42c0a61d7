/**
 * GET /filters/system, /filters/user and /filters/:filter_id (reference §5.8), and the workbench's
 * /filters/explain, /filters/test and /filters/images by name.
 * - system: every system filter by id;
 * - user: the key user's own filters by id; 403 `{"error":"Forbidden"}` without a valid key;
 * - one filter: shown if system, public, own, or to moderators and admins; else 404.
 */
import { Hono } from 'hono';
import type { z } from 'zod';
import { canViewFilter } from '../../contexts/filters/access.js';
import { findFilter, listSystemFilters, listUserFilters } from '../../contexts/filters/load.js';
import type { FilterRow } from '../../contexts/filters/types.js';
import type { Page } from '../../contexts/page.js';
import type { AppContext, AppEnv } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { cacheFor } from '../middleware/cache.js';
import { toPaging } from '../middleware/paging.js';
import type { FilterListResponse, FilterResponse } from '../schemas/envelopes.js';
import { pathIdValue, routeQuery } from '../schemas/params.js';
import { nameRoute } from '../route-name.js';
import { parseQuery } from '../validate.js';
import { explainInlineFilter, imagesUnderFilter, testFilter } from './workbench.js';
import { filterView } from '../views/filter.js';

const filterPage = ({ rows, total }: Page<FilterRow>) =>
  ({ filters: rows.map(filterView), total }) satisfies z.output<typeof FilterListResponse>;

const systemFilters = async (c: AppContext) => {
  const body = filterPage(await listSystemFilters(c.get('deps').db, toPaging(parseQuery(c, routeQuery.paged))));
  cacheFor(c, 300);
  return c.json(body);
};

const userFilters = async (c: AppContext) => {
  const user = c.get('user');
  // the paging is read first: a malformed value is 400 before the missing key is 403, as it was
  const paging = toPaging(parseQuery(c, routeQuery.paged));
  if (user === null) return forbidden(c);
  const body = filterPage(await listUserFilters(c.get('deps').db, user.id, paging));
  cacheFor(c, 60, { dependsOnUser: true });
  return c.json(body);
};

const oneFilter = async (c: AppContext, id: number) => {
  const user = c.get('user');
  const filter = await findFilter(c.get('deps').db, id);
  if (!filter || !canViewFilter(user, filter)) return notFound(c);
  // Public and system filters look the same to everyone; others only to their viewers.
  cacheFor(c, 300, { dependsOnUser: !(filter.system || filter.public) });
  return c.json({ filter: filterView(filter) } satisfies z.output<typeof FilterResponse>);
};

/** The fixed names in the place of a filter id (the workbench's two included). */
const NAMED = new Map<string, (c: AppContext) => Promise<Response>>([
  ['system', systemFilters],
  ['user', userFilters],
  ['explain', explainInlineFilter],
  ['test', testFilter],
  ['images', imagesUnderFilter],
]);

export function filterRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // One route for names and ids: Hono's RegExpRouter cannot hold a fixed name beside a parameter
  // in the same place, and would leave the app on its slower router.
  app.get('/filters/:filter_id', (c) => {
    const segment = c.req.param('filter_id');
    const named = NAMED.get(segment);
    if (named) {
      nameRoute(c, 'filter_id', segment);
      return named(c);
    }
    const id = pathIdValue(segment);
    return id === undefined ? notFound(c) : oneFilter(c, id);
  });
  return app;
}
