/**
 * Durable background jobs in PostgreSQL. A job is enqueued in the same transaction as the change
 * that needs it, claimed with `FOR UPDATE SKIP LOCKED` (several workers never take the same job),
 * retried with exponential backoff, and parked after its last attempt so an operator can see it.
 * A job left `running` by a killed process is taken again once its lock is stale.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';

export interface Job {
  id: number;
  kind: string;
  payload: Record<string, unknown>;
  attempts: number;
  maxAttempts: number;
}

/** Anything with `execute` (the database or a transaction). */
type Executor = Pick<Database, 'execute'>;

/**
 * How long a `running` job may go without a heartbeat before another worker assumes its process
 * died. Workers renew the lock every `HEARTBEAT_SECONDS` while a job runs.
 */
export const STALE_LOCK_SECONDS = 60;
export const HEARTBEAT_SECONDS = 15;

/** Renew the lock of a job still in hand. */
export async function heartbeatJob(db: Executor, id: number): Promise<void> {
  await db.execute(sql`update jobs set locked_at = now() where id = ${id} and state = 'running'`);
}

export async function enqueueJob(db: Executor, kind: string, payload: Record<string, unknown>, options: { maxAttempts?: number; delayMs?: number } = {}): Promise<number> {
  const rows = await db.execute<{ id: number }>(sql`
    insert into jobs (kind, payload, max_attempts, run_at)
    values (${kind}, ${JSON.stringify(payload)}::jsonb, ${options.maxAttempts ?? 5}, now() + ${`${options.delayMs ?? 0} milliseconds`}::interval)
    returning id`);
  await db.execute(sql`select pg_notify('jobs', ${kind})`);
  return Number(rows[0]!.id);
}

/**
 * Enqueue one job of `kind` per payload in one statement; they are claimed in the payloads' order
 * (their ids follow it).
 */
export async function enqueueJobs(db: Executor, kind: string, payloads: readonly Record<string, unknown>[], options: { maxAttempts?: number } = {}): Promise<void> {
  if (payloads.length === 0) return;
  await db.execute(sql`
    insert into jobs (kind, payload, max_attempts, run_at)
    select ${kind}, p.payload, ${options.maxAttempts ?? 5}, now()
    from jsonb_array_elements(${JSON.stringify(payloads)}::jsonb) with ordinality as p(payload, n)
    order by p.n`);
  await db.execute(sql`select pg_notify('jobs', ${kind})`);
}

/** Claim up to `limit` due jobs of the given kinds. */
export async function claimJobs(db: Executor, kinds: readonly string[], limit = 1): Promise<Job[]> {
  const rows = await db.execute<{ id: number; kind: string; payload: Record<string, unknown>; attempts: number; max_attempts: number }>(sql`
    update jobs set state = 'running', locked_at = now(), attempts = attempts + 1, updated_at = now()
    where id in (
      select id from jobs
      where kind in (${sql.join(kinds.length > 0 ? kinds.map((k) => sql`${k}`) : [sql`null`], sql`, `)})
        and ((state = 'queued' and run_at <= now())
          or (state = 'running' and locked_at < now() - ${`${STALE_LOCK_SECONDS} seconds`}::interval))
      order by run_at, id
      for update skip locked
      limit ${limit}
    )
    returning id, kind, payload, attempts, max_attempts`);
  return rows.map((r) => ({ id: Number(r.id), kind: r.kind, payload: r.payload, attempts: r.attempts, maxAttempts: r.max_attempts }));
}

export async function completeJob(db: Executor, id: number): Promise<void> {
  await db.execute(sql`update jobs set state = 'done', locked_at = null, last_error = null, updated_at = now() where id = ${id}`);
}

/** Backoff before the next attempt: 2^attempts seconds (2 s, 4 s, 8 s, …), at most an hour. */
export function retryDelaySeconds(attempts: number): number {
  return Math.min(3600, 2 ** attempts);
}

/** Record a failure: retry later, or park the job after its last attempt. */
export async function failJob(db: Executor, job: Job, error: unknown): Promise<'retry' | 'parked'> {
  const message = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)).slice(0, 2000);
  const parked = job.attempts >= job.maxAttempts;
  await db.execute(sql`
    update jobs set
      state = ${parked ? 'parked' : 'queued'},
      run_at = now() + ${`${retryDelaySeconds(job.attempts)} seconds`}::interval,
      locked_at = null, last_error = ${message}, updated_at = now()
    where id = ${job.id}`);
  return parked ? 'parked' : 'retry';
}

export interface QueueStats {
  queued: number;
  running: number;
  parked: number;
  done: number;
}

export async function queueStats(db: Executor): Promise<QueueStats> {
  const rows = await db.execute<{ state: keyof QueueStats; n: number }>(sql`select state, count(*)::int as n from jobs group by state`);
  const stats: QueueStats = { queued: 0, running: 0, parked: 0, done: 0 };
  for (const r of rows) stats[r.state] = r.n;
  return stats;
}

/** Parked jobs, newest first, for operators. */
export async function parkedJobs(db: Executor, limit = 50) {
  return db.execute<{ id: number; kind: string; payload: unknown; attempts: number; last_error: string | null; updated_at: string }>(
    sql`select id, kind, payload, attempts, last_error, updated_at from jobs where state = 'parked' order by updated_at desc limit ${limit}`,
  );
}

/** Put a parked job back in the queue with fresh attempts. */
export async function retryParkedJob(db: Executor, id: number): Promise<boolean> {
  return (await retryParkedJobs(db, id)) > 0;
}

/** Put parked jobs (one, or every one) back in the queue with fresh attempts; how many. */
export async function retryParkedJobs(db: Executor, id?: number): Promise<number> {
  const rows = await db.execute(sql`
    update jobs set state = 'queued', attempts = 0, run_at = now(), updated_at = now()
    where state = 'parked' ${id === undefined ? sql`` : sql`and id = ${id}`} returning id`);
  return rows.length;
}

/** Delete a parked job, giving up on it; false when there is no parked job of that id. */
export async function removeParkedJob(db: Executor, id: number): Promise<boolean> {
  const rows = await db.execute(sql`delete from jobs where id = ${id} and state = 'parked' returning id`);
  return rows.length > 0;
}
