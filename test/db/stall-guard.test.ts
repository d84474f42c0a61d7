/**
 * A frozen PostgreSQL (its postmaster and every backend stopped with SIGSTOP, as a hung host or a
 * stopped VM would be) under a pool with the stall guard: a query in flight, a query waiting for
 * the pool's only connection, a new connection and a transaction's COMMIT each fail within a
 * bound with an error `isDatabaseUnavailable` reads as an outage; once the server runs again
 * (SIGCONT) the same pool serves, and it holds no more connections than before.
 *
 * The server is one of this file's own (an embedded cluster in a temporary directory): stopping
 * the suite's shared server would stall every other test file.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';
import { postmasterPid, startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { isDatabaseUnavailable } from '../../src/db/unavailable.js';
import { waitUntil } from '../support/wait.js';

const BOUND_MS = 3_000;
let dataDir: string;
let server: EmbeddedPostgres;
let pool: Database;
/** A plain client without the guard, to look at the server from outside. */
let observer: postgres.Sql;

/** The postmaster and its children, read from the process table. */
function serverPids(): number[] {
  const postmaster = postmasterPid(join(dataDir, 'postgres'))!;
  const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(postmaster)]).toString().trim().split(/\s+/).filter(Boolean).map(Number);
  return [postmaster, ...children];
}

let frozen: number[] = [];
function freeze(): void {
  frozen = serverPids();
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
}
function thaw(): void {
  for (const pid of frozen) process.kill(pid, 'SIGCONT');
  frozen = [];
}

/** How the promise settled and after how long. */
async function settle(work: Promise<unknown>): Promise<{ ms: number; error?: unknown }> {
  const started = Date.now();
  try {
    await work;
    return { ms: Date.now() - started };
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-stall-'));
  server = await startEmbeddedPostgres(dataDir);
  observer = postgres(server.url, { max: 1, onnotice: () => {} });
  await observer`create table notes (id serial primary key, body text not null)`;
  pool = createDatabase(server.url, { max: 1, connectTimeoutSeconds: 2, stallGuard: { stallMs: 800, probeTimeoutMs: 1_000 } });
}, 60_000);

afterAll(async () => {
  thaw();
  await pool?.$client.end({ timeout: 1 });
  await observer?.end({ timeout: 1 });
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** After a thaw the guard's next probe (every 200 ms) lets connections through again. */
async function servesAgain(db: Database): Promise<void> {
  await waitUntil('the pool to serve again', () => db.$client`select 1`.then(() => true, () => false), 10_000, 100);
}

const ourConnections = async () =>
  Number((await observer`select count(*)::int as n from pg_stat_activity where application_name = 'tagwise'`)[0]!.n);

describe('a pool with the stall guard, under a frozen PostgreSQL', () => {
  it('fails a query in flight and a query waiting for the pool within the bound, then serves again', async () => {
    await pool.$client`select 1`;
    freeze();
    const inFlight = settle(pool.$client`select 1`);
    const waiting = settle(pool.$client`select 2`); // the pool's only connection is taken
    const [a, b] = await Promise.all([inFlight, waiting]);
    thaw();
    for (const outcome of [a, b]) {
      expect(outcome.error, 'rejected').toBeDefined();
      expect(isDatabaseUnavailable(outcome.error)).toBe(true);
      expect(outcome.ms).toBeLessThan(BOUND_MS);
    }
    await servesAgain(pool);
    expect(await ourConnections()).toBeLessThanOrEqual(1);
  }, 30_000);

  it('fails a transaction whose COMMIT hangs within the bound', async () => {
    const outcome = await settle(
      pool.transaction(async (tx) => {
        await tx.execute(sql`insert into notes (body) values ('before the freeze')`);
        freeze(); // the COMMIT that follows is never answered
      }),
    );
    thaw();
    expect(outcome.error, 'rejected').toBeDefined();
    expect(isDatabaseUnavailable(outcome.error)).toBe(true);
    expect(outcome.ms).toBeLessThan(BOUND_MS);
    await servesAgain(pool);
    const [row] = await pool.$client`select count(*)::int as n from notes`;
    expect(row!.n).toBeLessThanOrEqual(1); // the COMMIT's outcome is unknown, as after any lost connection
    expect(await ourConnections()).toBeLessThanOrEqual(1);
  }, 30_000);

  it('fails a new connection to a frozen server within the bound', async () => {
    const fresh = createDatabase(server.url, { max: 1, connectTimeoutSeconds: 30, stallGuard: { stallMs: 800, probeTimeoutMs: 1_000 } });
    try {
      freeze();
      const outcome = await settle(fresh.$client`select 1`);
      thaw();
      expect(outcome.error, 'rejected').toBeDefined();
      expect(isDatabaseUnavailable(outcome.error)).toBe(true);
      expect(outcome.ms).toBeLessThan(BOUND_MS);
      await servesAgain(fresh);
    } finally {
      thaw();
      await fresh.$client.end({ timeout: 1 });
    }
  }, 30_000);

  it('leaves a slow query alone while the server answers', async () => {
    const outcome = await settle(pool.$client`select pg_sleep(2.5)`);
    expect(outcome.error).toBeUndefined();
    expect(outcome.ms).toBeGreaterThanOrEqual(2_400);
  }, 30_000);
});
