/**
 * GET /filters/system, /filters/user and /filters/:filter_id (reference §5.8).
 * - system: every system filter by id;
 * - user: the key user's own filters by id; 403 `{"error":"Forbidden"}` without a valid key;
 * - one filter: shown if system, public, own, or to moderators and admins; else 404.
 */
import { asc, count, eq, type SQL } from 'drizzle-orm';
import { Hono } from 'hono';
import { filters } from '../../db/schema/index.js';
import type { AppContext, AppEnv } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { cacheFor } from '../middleware/cache.js';
import { canViewFilter, findFilter } from '../middleware/filter.js';
import { paging } from '../middleware/paging.js';
import { parseId } from '../params.js';
import { filterView } from '../views/filter.js';

async function filterPage(c: AppContext, where: SQL) {
  const { db } = c.get('deps');
  const { perPage, offset } = paging(c);
  const [rows, totals] = await Promise.all([
    db.select().from(filters).where(where).orderBy(asc(filters.id)).limit(perPage).offset(offset),
    db.select({ n: count() }).from(filters).where(where),
  ]);
  return { filters: rows.map(filterView), total: totals[0]?.n ?? 0 };
}

export function filterRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/filters/system', async (c) => {
    const body = await filterPage(c, eq(filters.system, true));
    cacheFor(c, 300);
    return c.json(body);
  });

  app.get('/filters/user', async (c) => {
    const user = c.get('user');
    if (user === null) return forbidden(c);
    const body = await filterPage(c, eq(filters.userId, user.id));
    cacheFor(c, 60, { dependsOnUser: true });
    return c.json(body);
  });

  app.get('/filters/:filter_id', async (c) => {
    const id = parseId(c.req.param('filter_id'));
    if (id === undefined) return notFound(c);
    const user = c.get('user');
    const filter = await findFilter(c.get('deps').db, id);
    if (!filter || !canViewFilter(user, filter)) return notFound(c);
    // Public and system filters look the same to everyone; others only to their viewers.
    cacheFor(c, 300, { dependsOnUser: !(filter.system || filter.public) });
    return c.json({ filter: filterView(filter) });
  });

  return app;
}
