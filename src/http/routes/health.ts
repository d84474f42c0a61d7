/**
 * GET /healthz (liveness): 200 `{"status":"ok","database":"up","counts":{…}}` with the row counts
 * of the main tables, or 503 `{"status":"error","database":"down"}` with `Retry-After` when the
 * database does not answer.
 *
 * GET /readyz (readiness, for load balancers): 200
 * `{"status":"ready","database":"up","engine":"up","indexer":"up"}` only when the database
 * answers, the search engine answers, and the indices have caught up — the in-process indexer
 * (if any) has started following the outbox and the oldest unapplied change is younger than
 * `READY_MAX_OUTBOX_LAG_SECONDS`. Otherwise 503 `{"status":"not ready", …}` naming the failing
 * parts (`down`, `starting`, `behind`, or `unknown` when the database cannot tell), and 503
 * `{"status":"stopping"}` as soon as shutdown begins. Each check has 2 s to answer.
 *
 * Never cached.
 */
import { Hono } from 'hono';
import { countRecords, pingDatabase, type RecordCounts } from '../../contexts/board/health.js';
import { outboxLag } from '../../contexts/indexing/outbox-lag.js';
import type { AppEnv } from '../context.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../middleware/errors.js';
import { withTimeout } from './metrics.js';

const CHECK_TIMEOUT_MS = 2_000;

type Part = 'up' | 'down' | 'starting' | 'behind' | 'unknown';

export function healthRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get('/healthz', async (c) => {
    c.header('Cache-Control', 'no-store');
    let counts: RecordCounts;
    try {
      counts = await countRecords(c.get('deps').db);
    } catch (err) {
      c.get('deps').logger?.error({ err }, 'health check: database query failed');
      c.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
      return c.json({ status: 'error', database: 'down' }, 503);
    }
    return c.json({ status: 'ok', database: 'up', counts });
  });

  app.get('/readyz', async (c) => {
    c.header('Cache-Control', 'no-store');
    const { db, engine, config, readiness, indexerLag } = c.get('deps');
    const state = readiness?.();
    if (state?.stopping) return c.json({ status: 'stopping' }, 503);

    const failures: Record<string, string> = {};
    const check = async (name: string, probe: () => Promise<unknown>): Promise<boolean> => {
      try {
        await withTimeout(probe(), CHECK_TIMEOUT_MS, name);
        return true;
      } catch (err) {
        failures[name] = err instanceof Error ? err.message : String(err);
        return false;
      }
    };
    let lagSeconds: number | null = null;
    const [databaseUp, engineUp, lagKnown] = await Promise.all([
      check('database', () => pingDatabase(db)),
      check('engine', () => engine.count('images')),
      check('outbox', async () => {
        lagSeconds = (await (indexerLag ? indexerLag() : outboxLag(db))).oldestAgeSeconds;
      }),
    ]);
    let indexer: Part = 'up';
    if (state?.indexer === 'starting') indexer = 'starting';
    else if (!lagKnown) indexer = 'unknown';
    else if (lagSeconds !== null && lagSeconds >= config.readyMaxOutboxLagSeconds) indexer = 'behind';

    const parts: Record<'database' | 'engine' | 'indexer', Part> = {
      database: databaseUp ? 'up' : 'down',
      engine: engineUp ? 'up' : 'down',
      indexer,
    };
    if (databaseUp && engineUp && indexer === 'up') return c.json({ status: 'ready', ...parts });
    c.get('log')?.warn({ ...parts, failures, outboxLagSeconds: lagSeconds }, 'not ready');
    return c.json({ status: 'not ready', ...parts, ...(indexer === 'behind' ? { outbox_lag_seconds: Math.round(lagSeconds ?? 0) } : {}) }, 503);
  });

  return app;
}
