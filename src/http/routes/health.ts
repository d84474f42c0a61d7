/**
 * GET /healthz: 200 `{"status":"ok","database":"up","counts":{…}}` with the row counts of the main
 * tables, or 503 `{"status":"error","database":"down"}` when the database does not answer.
 * Never cached.
 */
import { sql } from 'drizzle-orm';
import { Hono } from 'hono';
import type { AppEnv } from '../context.js';

const COUNTED = ['images', 'tags', 'users', 'comments', 'posts', 'galleries', 'filters'] as const;
export type HealthCounts = Record<(typeof COUNTED)[number], number>;

const COUNT_QUERY = sql.raw(`select ${COUNTED.map((t) => `(select count(*) from ${t})::int as ${t}`).join(', ')}`);

export function healthRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/healthz', async (c) => {
    c.header('Cache-Control', 'no-store');
    let counts: HealthCounts;
    try {
      const rows = await c.get('deps').db.execute<HealthCounts>(COUNT_QUERY);
      const row = rows[0];
      if (!row) throw new Error('no row');
      counts = Object.fromEntries(COUNTED.map((t) => [t, Number(row[t])])) as HealthCounts;
    } catch (err) {
      c.get('deps').logger?.error({ err }, 'health check: database query failed');
      return c.json({ status: 'error', database: 'down' }, 503);
    }
    return c.json({ status: 'ok', database: 'up', counts });
  });

  return app;
}
