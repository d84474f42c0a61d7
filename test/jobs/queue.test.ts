import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { claimJobs, enqueueJob, heartbeatJob, JobWorker, parkedJobs, queueStats, retryParkedJob, STALE_LOCK_SECONDS, type Job } from '../../src/jobs/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.drop());
beforeEach(async () => {
  await t.db.execute(sql`delete from jobs`);
});

describe('job queue', () => {
  it('runs each job once even with several workers claiming at once', async () => {
    for (let i = 0; i < 20; i++) await enqueueJob(t.db, 'count', { i });
    const seen: number[] = [];
    const handlers = { count: async (job: Job) => void seen.push(job.payload.i as number) };
    const workers = [new JobWorker({ db: t.db, handlers, concurrency: 2 }), new JobWorker({ db: t.db, handlers, concurrency: 2 })];
    await Promise.all(workers.map((w) => w.drain()));
    expect(seen.sort((a, b) => a - b)).toEqual([...Array(20).keys()]);
    expect(await queueStats(t.db)).toMatchObject({ queued: 0, running: 0, done: 20 });
  });

  it('retries with backoff, then parks the job where operators see it', async () => {
    const id = await enqueueJob(t.db, 'flaky', {}, { maxAttempts: 2 });
    const worker = new JobWorker({ db: t.db, handlers: { flaky: async () => Promise.reject(new Error('broken file')) } });
    await worker.drain();
    let [row] = await t.db.execute<{ state: string; attempts: number; wait: number; last_error: string }>(
      sql`select state, attempts, extract(epoch from run_at - now())::float as wait, last_error from jobs where id = ${id}`,
    );
    expect(row).toMatchObject({ state: 'queued', attempts: 1, last_error: 'Error: broken file' });
    expect(row!.wait).toBeGreaterThan(0); // not due again right away

    await t.db.execute(sql`update jobs set run_at = now() where id = ${id}`);
    await worker.drain();
    [row] = await t.db.execute(sql`select state, attempts from jobs where id = ${id}`);
    expect(row).toMatchObject({ state: 'parked', attempts: 2 });
    expect((await parkedJobs(t.db)).map((j) => Number(j.id))).toEqual([id]);

    expect(await retryParkedJob(t.db, id)).toBe(true);
    expect((await claimJobs(t.db, ['flaky'])).map((j) => j.id)).toEqual([id]);
  });

  it('survives a restart: queued jobs and jobs of a dead worker are taken again', async () => {
    const queued = await enqueueJob(t.db, 'work', { n: 1 });
    const orphan = await enqueueJob(t.db, 'work', { n: 2 });
    // A worker claimed `orphan` and died: its lock is older than the stale limit.
    await t.db.execute(sql`update jobs set state = 'running', attempts = 1, locked_at = now() - interval '1 hour' where id = ${orphan}`);
    const done: number[] = [];
    const worker = new JobWorker({ db: t.db, handlers: { work: async (j) => void done.push(j.id) }, pollMs: 50 });
    await worker.start();
    await expect.poll(() => done.length, { timeout: 5000 }).toBe(2);
    await worker.stop();
    expect(done.sort()).toEqual([queued, orphan].sort());
  });

  it('a job whose worker keeps its heartbeat is not taken by another worker', async () => {
    const id = await enqueueJob(t.db, 'long', {});
    expect((await claimJobs(t.db, ['long'])).map((j) => j.id)).toEqual([id]);
    await t.db.execute(sql`update jobs set locked_at = now() - ${`${STALE_LOCK_SECONDS + 1} seconds`}::interval where id = ${id}`);
    await heartbeatJob(t.db, id); // the owner is alive and renews its lock
    expect(await claimJobs(t.db, ['long'])).toEqual([]);
    await t.db.execute(sql`update jobs set locked_at = now() - ${`${STALE_LOCK_SECONDS + 1} seconds`}::interval where id = ${id}`);
    expect((await claimJobs(t.db, ['long'])).map((j) => j.id)).toEqual([id]); // no heartbeat: taken again
  });

  it('wakes on enqueue without waiting for the poll', async () => {
    const done: number[] = [];
    const worker = new JobWorker({ db: t.db, handlers: { ping: async (j) => void done.push(j.id) }, pollMs: 60_000 });
    await worker.start();
    const started = Date.now();
    const id = await enqueueJob(t.db, 'ping', {});
    await expect.poll(() => done, { timeout: 5000 }).toEqual([id]);
    expect(Date.now() - started).toBeLessThan(5000);
    await worker.stop();
  });
});
