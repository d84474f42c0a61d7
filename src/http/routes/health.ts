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
 * Beside a shared engine (OpenSearch) the rule for the indexer differs after start. At start a
 * process is `starting` until the index holds every change written to the outbox before it
 * began to serve. From then on every process reads the same index, so its lag is the same for
 * all of them: failing readiness on it would take every process out of the load balancer at
 * once, turning stale searches into an outage (and reads by id come from PostgreSQL). So a lag
 * of `READY_MAX_OUTBOX_LAG_SECONDS` or more answers 200 `{"status":"degraded","indexer":"behind",
 * "outbox_lag_seconds":N,…}`, logged as a warning, for monitoring to alert on; a process that
 * cannot reach the database or the engine still fails. `indexer_leader` says whether this
 * process is the one following the outbox.
 *
 * `/readyz` also carries `"storage"`: `"up"`, or `"full"` while the media storage refuses writes
 * for want of space (uploads are answered 507). For the same reason a full storage does not make
 * the process unready: everything but storing new files still works, and the storage is usually
 * shared by every process, so taking them out of the load balancer would turn refused uploads
 * into a whole board down. A process otherwise ready answers 200 `{"status":"degraded",
 * "storage":"full",…}`. While full, each check makes a small test write (at most every 10 s) to
 * learn whether space is back.
 *
 * Never cached.
 */
import { Hono } from 'hono';
import { countRecords, pingDatabase, type RecordCounts } from '../../contexts/board/health.js';
import { outboxLag } from '../../contexts/indexing/outbox-lag.js';
import { probeStorage } from '../../media/storage.js';
import type { AppDeps, AppEnv } from '../context.js';
import { DATABASE_RETRY_AFTER_SECONDS } from '../middleware/errors.js';
import { storageOf } from '../media-storage.js';
import { withTimeout } from '../../lib/with-timeout.js';

const CHECK_TIMEOUT_MS = 2_000;

type Part = 'up' | 'down' | 'starting' | 'behind' | 'unknown';

/** `full` while the storage refuses writes; a test write (at most every 10 s) notices space coming back. */
async function storageState(deps: AppDeps): Promise<'up' | 'full'> {
  const storage = storageOf(deps);
  if (!storage.health.full) return 'up';
  return (await withTimeout(probeStorage(storage), CHECK_TIMEOUT_MS, 'storage').catch(() => true)) ? 'full' : 'up';
}

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

    const parts: Record<'database' | 'engine' | 'indexer', Part> & { storage: 'up' | 'full' } = {
      database: databaseUp ? 'up' : 'down',
      engine: engineUp ? 'up' : 'down',
      indexer,
      storage: await storageState(c.get('deps')),
    };
    const leader = state?.leading ? { indexer_leader: state.leading() } : {};
    if (parts.storage === 'full') c.get('log')?.warn({ storage: storageOf(c.get('deps')).location }, 'degraded: media storage full');
    if (databaseUp && engineUp && indexer === 'up') return c.json({ status: parts.storage === 'full' ? 'degraded' : 'ready', ...parts, ...leader });
    if (databaseUp && engineUp && indexer === 'behind' && state?.indexer === 'shared') {
      c.get('log')?.warn({ ...parts, outboxLagSeconds: lagSeconds }, 'degraded: the shared index lags');
      return c.json({ status: 'degraded', ...parts, outbox_lag_seconds: Math.round(lagSeconds ?? 0), ...leader });
    }
    c.get('log')?.warn({ ...parts, failures, outboxLagSeconds: lagSeconds }, 'not ready');
    return c.json({ status: 'not ready', ...parts, ...(indexer === 'behind' ? { outbox_lag_seconds: Math.round(lagSeconds ?? 0) } : {}), ...leader }, 503);
  });

  return app;
}
