/**
 * GET /readyz: ready only when the database and the engine answer and the indices have caught
 * up; 503 naming the failing parts otherwise, and at once when shutdown begins; beside a shared
 * index, a lag after start degrades it instead. /healthz stays a liveness check.
 */
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import type { IndexerLag, ReadinessState } from '../../src/http/env/context.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { createDatabase } from '../../src/db/client.js';
import { createTestDatabase } from '../support/db.js';
import { startOps, type OpsHarness } from './support.js';

const READY = { status: 'ready', database: 'up', engine: 'up', indexer: 'up', storage: 'up' };

/** An engine whose `count` fails (or never answers). */
function brokenEngine(mode: 'fail' | 'hang'): SearchEngine {
  return new Proxy({ kind: 'embedded' } as SearchEngine, {
    get(target, prop) {
      if (prop === 'kind') return target.kind;
      if (prop === 'then') return undefined;
      return () => (mode === 'fail' ? Promise.reject(new Error('engine unavailable')) : new Promise(() => {}));
    },
  });
}

let h: OpsHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('/readyz', () => {
  it('is ready when the database, the engine and the indexer are', async () => {
    h = await startOps();
    const res = await h.json('/readyz');
    expect(res).toMatchObject({ status: 200, body: READY });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('follows the process: starting indexer, then started, then shutdown', async () => {
    const state: ReadinessState = { stopping: false, indexer: 'starting' };
    h = await startOps({ deps: { readiness: () => state } });
    expect(await h.json('/readyz')).toMatchObject({ status: 503, body: { status: 'not ready', database: 'up', engine: 'up', indexer: 'starting' } });
    state.indexer = 'started';
    expect(await h.json('/readyz')).toMatchObject({ status: 200, body: READY });
    state.stopping = true;
    expect(await h.json('/readyz')).toMatchObject({ status: 503, body: { status: 'stopping' } });
    // liveness is another question
    expect((await h.request('/healthz')).status).toBe(200);
  });

  it('is not ready while the indices lag behind the outbox', async () => {
    h = await startOps({ env: { READY_MAX_OUTBOX_LAG_SECONDS: '30' } });
    await h.db.execute(sql`insert into search_outbox (index, record_id, created_at) values ('images', 1, now() - interval '5 seconds')`);
    expect((await h.json('/readyz')).status).toBe(200);
    await h.db.execute(sql`insert into search_outbox (index, record_id, created_at) values ('images', 2, now() - interval '45 seconds')`);
    const res = await h.json('/readyz');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ status: 'not ready', database: 'up', engine: 'up', indexer: 'behind' });
    expect(res.body.outbox_lag_seconds).toBeGreaterThanOrEqual(45);
    await h.db.execute(sql`delete from search_outbox`);
    expect((await h.json('/readyz')).status).toBe(200);
  });

  it('beside a shared index: starting until caught up with the start, then a lag degrades readiness, it does not fail it', async () => {
    const state: ReadinessState = { stopping: false, indexer: 'starting', leading: () => false };
    h = await startOps({ deps: { readiness: () => state }, env: { READY_MAX_OUTBOX_LAG_SECONDS: '30' } });
    expect(await h.json('/readyz')).toMatchObject({ status: 503, body: { status: 'not ready', indexer: 'starting', indexer_leader: false } });
    state.indexer = 'shared';
    expect(await h.json('/readyz')).toMatchObject({ status: 200, body: { ...READY, indexer_leader: false } });
    // the indexer stops: every process reads the same lagging index, and none leaves the load balancer for it
    await h.db.execute(sql`insert into search_outbox (index, record_id, created_at) values ('images', 3, now() - interval '45 seconds')`);
    const res = await h.json('/readyz');
    expect(res).toMatchObject({ status: 200, body: { status: 'degraded', database: 'up', engine: 'up', indexer: 'behind', indexer_leader: false } });
    expect(res.body.outbox_lag_seconds).toBeGreaterThanOrEqual(45);
    expect(h.lines.some((l) => l.msg === 'degraded: the shared index lags' && l.level === 40)).toBe(true);
    await h.db.execute(sql`delete from search_outbox`);
    expect(await h.json('/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it("takes the in-process indexer's own lag when given", async () => {
    let lag: IndexerLag = { pending: 1, oldestAgeSeconds: 31 };
    h = await startOps({ deps: { indexerLag: async () => lag } });
    expect((await h.json('/readyz')).body.indexer).toBe('behind');
    lag = { pending: 0, oldestAgeSeconds: null };
    expect((await h.json('/readyz')).status).toBe(200);
  });

  it('is not ready when the engine fails or does not answer', async () => {
    h = await startOps({ deps: { engine: brokenEngine('fail') } });
    expect(await h.json('/readyz')).toMatchObject({ status: 503, body: { status: 'not ready', database: 'up', engine: 'down', indexer: 'up' } });
    await h.close();
    h = await startOps({ deps: { engine: brokenEngine('hang') } });
    const started = Date.now();
    expect(await h.json('/readyz')).toMatchObject({ status: 503, body: { engine: 'down' } });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(h.lines.some((l) => l.msg === 'not ready' && l.level === 40)).toBe(true);
  });

  it('is not ready when the database is down (a closed pool), while /healthz reports it down', async () => {
    const tdb = await createTestDatabase();
    try {
      // a pool of its own, closed under the app: every query fails
      const pool = createDatabase(tdb.url, { max: 2 });
      h = await startOps({ db: pool });
      expect((await h.json('/readyz')).status).toBe(200);
      await pool.$client.end({ timeout: 1 });
      const down = await h.json('/readyz');
      expect(down).toMatchObject({ status: 503, body: { status: 'not ready', database: 'down', engine: 'up', indexer: 'unknown' } });
      expect((await h.json('/healthz')).status).toBe(503);
    } finally {
      await h?.close();
      h = undefined;
      await tdb.drop();
    }
  });
});
