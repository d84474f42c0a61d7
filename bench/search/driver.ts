/**
 * HTTP load driver, run as a child process (so that it does not share the server's event loop):
 * `connections` keep-alive connections, each sending the next path of the list as soon as its
 * previous answer is read (closed loop), or with `rate`, on a fixed schedule that spreads `rate`
 * requests a second over the connections (open loop), for `warmupSeconds` (not recorded) and
 * then `seconds`. Receives a DriverJob over IPC and answers a DriverResult.
 */
import { Pool } from 'undici';

export interface DriverJob {
  origin: string;
  paths: string[];
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /**
   * Requests a second in all (open loop). A request's latency counts from the time it was due,
   * so an answer that comes late delays the next one's clock too; timer lateness (under a
   * millisecond) is counted against the server.
   */
  rate?: number;
}

export interface DriverResult {
  /** Requests answered in the measured window. */
  requests: number;
  /** Every request sent, warm-up included. */
  allRequests: number;
  /** Answers whose status was not 2xx (measured window). */
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  bytes: number;
}

async function run(job: DriverJob): Promise<DriverResult> {
  const pool = new Pool(job.origin, { connections: job.connections, pipelining: 1, keepAliveTimeout: 60_000 });
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let allRequests = 0;
  let bytes = 0;
  const start = performance.now();
  const measureFrom = start + job.warmupSeconds * 1000;
  const end = measureFrom + job.seconds * 1000;
  const interval = job.rate ? (1000 * job.connections) / job.rate : 0;
  const worker = async (w: number) => {
    let i = Math.floor((w * job.paths.length) / job.connections);
    let due = start + (interval * w) / job.connections;
    for (;;) {
      if (interval > 0) {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((done) => setTimeout(done, wait));
      }
      const t0 = interval > 0 ? due : performance.now();
      due += interval;
      if (t0 >= end) return;
      const path = job.paths[i++ % job.paths.length]!;
      const res = await pool.request({ path, method: 'GET' });
      const body = Buffer.from(await res.body.arrayBuffer());
      const t1 = performance.now();
      allRequests++;
      if (t0 >= measureFrom && t1 <= end) {
        latencies.push(t1 - t0);
        bytes += body.length;
        statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
        if (res.statusCode < 200 || res.statusCode >= 300) errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: job.connections }, (_, w) => worker(w)));
  await pool.close();
  latencies.sort((a, b) => a - b);
  const p = (q: number) => (latencies.length === 0 ? Number.NaN : latencies[Math.min(latencies.length, Math.max(1, Math.ceil(q * latencies.length))) - 1]!);
  return {
    requests: latencies.length,
    allRequests,
    errors,
    statuses,
    seconds: job.seconds,
    rps: latencies.length / job.seconds,
    p50: p(0.5),
    p90: p(0.9),
    p99: p(0.99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
    bytes,
  };
}

if (process.send) {
  process.once('message', (job: DriverJob) => {
    run(job).then(
      (result) => process.send!({ ok: true, result }, undefined, {}, () => process.exit(0)),
      (err: unknown) => process.send!({ ok: false, error: err instanceof Error ? err.stack : String(err) }, undefined, {}, () => process.exit(1)),
    );
  });
}
