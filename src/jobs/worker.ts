import type { Database } from '../db/client.js';
import { claimJobs, completeJob, failJob, heartbeatJob, HEARTBEAT_SECONDS, type Job } from './queue.js';

export type JobHandler = (job: Job) => Promise<void>;

export interface WorkerOptions {
  db: Database;
  handlers: Record<string, JobHandler>;
  /** Jobs run at once; processing is CPU-bound, so keep it at 1–2 on a small machine. */
  concurrency?: number;
  pollMs?: number;
  log?: (msg: string, detail?: Record<string, unknown>) => void;
}

/**
 * Runs jobs until stopped: wakes on `NOTIFY jobs` and polls as a fallback (delayed retries and
 * notifications missed while disconnected). `stop()` lets the jobs in hand finish.
 */
export class JobWorker {
  private running = false;
  private active = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private wake: (() => void) | undefined;
  /** A notification that came while the loop was claiming, not waiting: the next wait is skipped. */
  private woken = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly o: WorkerOptions) {}

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      const sub = await this.o.db.$client.listen('jobs', () => this.notify());
      this.unlisten = () => sub.unlisten();
    } catch {
      // Polling alone still works.
    }
    this.loop = this.run();
  }

  /** Process due jobs until none is left (for tests and one-shot CLIs). */
  async drain(): Promise<number> {
    let done = 0;
    for (;;) {
      const jobs = await claimJobs(this.o.db, Object.keys(this.o.handlers), this.o.concurrency ?? 1);
      if (jobs.length === 0) return done;
      await Promise.all(jobs.map((j) => this.execute(j)));
      done += jobs.length;
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.notify();
    if (this.timer) clearTimeout(this.timer);
    await this.loop;
    await Promise.all(this.active);
    await this.unlisten?.().catch(() => {});
  }

  private async run(): Promise<void> {
    const kinds = Object.keys(this.o.handlers);
    const concurrency = this.o.concurrency ?? 1;
    while (this.running) {
      const free = concurrency - this.active.size;
      let claimed: Job[] = [];
      if (free > 0) {
        try {
          claimed = await claimJobs(this.o.db, kinds, free);
        } catch (err) {
          this.o.log?.('job claim failed', { err: String(err) });
        }
      }
      for (const job of claimed) {
        const p = this.execute(job).finally(() => {
          this.active.delete(p);
          this.notify();
        });
        this.active.add(p);
      }
      if ((claimed.length === 0 || this.active.size >= concurrency) && !this.woken) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.timer = setTimeout(resolve, this.o.pollMs ?? 1000);
        });
        this.wake = undefined;
        clearTimeout(this.timer);
      }
      this.woken = false;
    }
  }

  private notify(): void {
    if (this.wake) this.wake();
    else this.woken = true;
  }

  private async execute(job: Job): Promise<void> {
    const handler = this.o.handlers[job.kind];
    const heartbeat = setInterval(() => void heartbeatJob(this.o.db, job.id).catch(() => {}), HEARTBEAT_SECONDS * 1000);
    heartbeat.unref();
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`);
      await handler(job);
      await completeJob(this.o.db, job.id);
    } catch (err) {
      const outcome = await failJob(this.o.db, job, err).catch(() => 'retry' as const);
      this.o.log?.(`job ${job.id} (${job.kind}) failed: ${outcome}`, { err: String(err), attempts: job.attempts });
    } finally {
      clearInterval(heartbeat);
    }
  }
}
