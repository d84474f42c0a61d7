/**
 * GET /filters/system, /filters/user and /filters/:filter_id (reference §5.8).
 * - system: every system filter by id;
 * - user: the key user's own filters by id; 403 `{"error":"Forbidden"}` without a valid key;
 * - one filter: shown if system, public, own, or to moderators and admins; else 404.
 */
import { asc, count, eq, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import type { z } from 'zod';
import { filters } from '../../db/schema/index.js';
import type { AppContext, AppEnv } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { cacheFor } from '../middleware/cache.js';
import { canViewFilter, findFilter } from '../middleware/filter.js';
import { toPaging, type PageParams } from '../middleware/paging.js';
import type { FilterListResponse, FilterResponse } from '../schemas/envelopes.js';
import { routeQuery } from '../schemas/params.js';
import { validPath, validQuery } from '../validate.js';
import { filterView } from '../views/filter.js';

async function filterPage(c: AppContext, params: PageParams, where: SQL) {
  const { db } = c.get('deps');
  const { perPage, offset } = toPaging(params);
  const [rows, totals] = await Promise.all([
    db.select().from(filters).where(where).orderBy(asc(filters.id)).limit(perPage).offset(offset),
    db.select({ n: count() }).from(filters).where(where),
  ]);
  return { filters: rows.map(filterView), total: totals[0]?.n ?? 0 } satisfies z.output<typeof FilterListResponse>;
}

export function filterRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/filters/system', validQuery(routeQuery.paged), async (c) => {
    const body = await filterPage(c, c.req.valid('query'), eq(filters.system, true));
    cacheFor(c, 300);
    return c.json(body);
  });

  app.get('/filters/user', validQuery(routeQuery.paged), async (c) => {
    const user = c.get('user');
    if (user === null) return forbidden(c);
    const body = await filterPage(c, c.req.valid('query'), eq(filters.userId, user.id));
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
