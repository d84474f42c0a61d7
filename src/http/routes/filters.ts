/**
 * GET /filters/system, /filters/user and /filters/:filter_id (reference §5.8).
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
import type { AppEnv } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { cacheFor } from '../middleware/cache.js';
import { toPaging } from '../middleware/paging.js';
import type { FilterListResponse, FilterResponse } from '../schemas/envelopes.js';
import { routeQuery } from '../schemas/params.js';
import { validPath, validQuery } from '../validate.js';
import { filterView } from '../views/filter.js';

const filterPage = ({ rows, total }: Page<FilterRow>) =>
  ({ filters: rows.map(filterView), total }) satisfies z.output<typeof FilterListResponse>;

export function filterRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/filters/system', validQuery(routeQuery.paged), async (c) => {
    const body = filterPage(await listSystemFilters(c.get('deps').db, toPaging(c.req.valid('query'))));
    cacheFor(c, 300);
    return c.json(body);
  });

  app.get('/filters/user', validQuery(routeQuery.paged), async (c) => {
    const user = c.get('user');
    if (user === null) return forbidden(c);
    const body = filterPage(await listUserFilters(c.get('deps').db, user.id, toPaging(c.req.valid('query'))));
    cacheFor(c, 60, { dependsOnUser: true });
    return c.json(body);
  });

  app.get('/filters/:filter_id', validPath('filter_id'), async (c) => {
    const id = c.req.valid('param').filter_id;
    const user = c.get('user');
    const filter = await findFilter(c.get('deps').db, id);
    if (!filter || !canViewFilter(user, filter)) return notFound(c);
    // Public and system filters look the same to everyone; others only to their viewers.
    cacheFor(c, 300, { dependsOnUser: !(filter.system || filter.public) });
    return c.json({ filter: filterView(filter) } satisfies z.output<typeof FilterResponse>);
  });

  return app;
}
