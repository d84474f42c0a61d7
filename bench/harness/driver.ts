/**
 * HTTP load driver, run as a child process (so that it does not share the server's event loop):
 * `connections` keep-alive connections, each sending the next path of the list as soon as its
 * previous answer is read (closed loop), or with `rate`, on a fixed schedule that spreads `rate`
 * requests a second over the connections (open loop), for `warmupSeconds` (not recorded) and
 * then `seconds`. Receives a DriverJob over IPC, tells when the measured window opens and ends
 * (DriverPhase) and answers a DriverResult, overall and per route group. Used by both load
 * benchmarks: `bench/search.ts` (the search endpoint) and `bench/load.ts` (the whole service).
 *
 * The driver shares the machine's two cores with the server, so its own cost per request is
 * counted against the server's latency. It speaks HTTP/1.1 on plain sockets and only counts the
 * bytes of an answer, as wrk or autocannon do: a general client (undici, reading each body into
 * a buffer) used about 0.38 ms of CPU per 45 KB answer, this one about 0.1 ms.
 */
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { percentile } from './stats.js';

export interface DriverJob {
  origin: string;
  paths: string[];
  /** The group of each path, an index into `groups`, for figures per route group; default one group. */
  groupOf?: number[];
  groups?: string[];
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /**
   * Requests a second in all (open loop). A request's latency counts from the time it was due,
   * so an answer that comes late delays the next one's clock too; timer lateness (under a
   * millisecond) is counted against the server.
   */
  rate?: number;
  /**
   * Stop sending after this many requests of the measured window; the warm-up sends as many as it
   * can (a bound that counted it ran out during a long warm-up on a fast service, and left the
   * measured window empty).
   */
  maxRequests?: number;
}

/** The figures of the measured window, overall or for one route group. */
export interface Figures {
  /** Requests answered in the measured window. */
  requests: number;
  /** Answers whose status was not 2xx. */
  errors: number;
  statuses: Record<string, number>;
  /** Requests that got no answer (refused, reset, closed), by error code. */
  socketErrors: Record<string, number>;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  bytes: number;
}

export interface DriverResult extends Figures {
  /** Every request sent, warm-up included. */
  allRequests: number;
  /** Length of the measured window (shorter than asked when `maxRequests` stopped the run). */
  seconds: number;
  rps: number;
  /** CPU the driver itself used, warm-up included, in ms. */
  cpuMs: number;
  /** Figures per entry of `groups`. */
  byGroup: Figures[];
  stoppedByCount: boolean;
}

/** Messages of the driver process besides its result: the measured window opens, and it ends. */
export type DriverPhase = 'measure' | 'end';

/** An answer as the driver keeps it. */
interface Answer {
  status: number;
  bodyBytes: number;
}

type Phase = 'head' | 'body' | 'chunk-size' | 'chunk-data' | 'trailer' | 'until-close';

const CRLF_CRLF = Buffer.from('\r\n\r\n');

/** One keep-alive HTTP/1.1 connection that sends a GET at a time and reads its answer's length. */
export class Connection {
  private socket: Socket | null = null;
  private waiting: { resolve(answer: Answer): void; reject(err: Error): void } | null = null;
  private phase: Phase = 'head';
  private partial: Buffer | null = null;
  private line = '';
  private status = 0;
  private remaining = 0;
  private bodyBytes = 0;
  private closeAfter = false;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  get(path: string): Promise<Answer> {
    const socket = this.socket ?? this.open();
    return new Promise<Answer>((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.phase = 'head';
      this.bodyBytes = 0;
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\n\r\n`);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private open(): Socket {
    const socket = connect({ host: this.host, port: this.port, noDelay: true });
    socket.on('data', (data: Buffer) => this.receive(data));
    socket.on('error', (err) => {
      if (this.socket === socket) this.fail(err);
    });
    socket.on('close', () => {
      if (this.socket !== socket) return; // closed by us
      this.socket = null;
      if (this.waiting && this.phase === 'until-close') this.finish();
      else this.fail(new Error('the server closed the connection'));
    });
    this.socket = socket;
    return socket;
  }

  private receive(data: Buffer): void {
    let at = 0;
    while (at < data.length && this.waiting) {
      switch (this.phase) {
        case 'head': {
          const pending = this.partial ? Buffer.concat([this.partial, data.subarray(at)]) : data.subarray(at);
          const end = pending.indexOf(CRLF_CRLF);
          if (end < 0) {
            this.partial = pending;
            return;
          }
          this.partial = null;
          data = pending;
          at = end + 4;
          if (this.readHead(pending.toString('latin1', 0, end))) this.finish();
          break;
        }
        case 'body':
        case 'chunk-data': {
          const take = Math.min(this.remaining, data.length - at);
          this.remaining -= take;
          at += take;
          if (this.phase === 'body') this.bodyBytes += take;
          if (this.remaining > 0) break;
          if (this.phase === 'body') this.finish();
          else this.phase = 'chunk-size';
          break;
        }
        case 'chunk-size':
        case 'trailer': {
          const newline = data.indexOf(10, at);
          if (newline < 0) {
            this.line += data.toString('latin1', at);
            return;
          }
          const line = (this.line + data.toString('latin1', at, newline)).replace(/\r$/, '');
          this.line = '';
          at = newline + 1;
          if (this.phase === 'trailer') {
            if (line === '') this.finish();
            break;
          }
          const size = Number.parseInt(line, 16);
          if (Number.isNaN(size)) {
            this.fail(new Error(`bad chunk size ${JSON.stringify(line)}`));
            return;
          }
          if (size === 0) this.phase = 'trailer';
          else {
            this.bodyBytes += size;
            this.remaining = size + 2;
            this.phase = 'chunk-data';
          }
          break;
        }
        case 'until-close':
          this.bodyBytes += data.length - at;
          at = data.length;
          break;
      }
    }
  }

  /** Reads the status line and headers; true if the answer has no body to wait for. */
  private readHead(head: string): boolean {
    const lines = head.split('\r\n');
    this.status = Number(lines[0]!.slice(9, 12));
    let length: number | null = null;
    let chunked = false;
    this.closeAfter = false;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i]!;
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim().toLowerCase();
      if (name === 'content-length') length = Number(value);
      else if (name === 'transfer-encoding') chunked = value.includes('chunked');
      else if (name === 'connection') this.closeAfter = value === 'close';
    }
    const bodiless = this.status === 204 || this.status === 304 || (this.status >= 100 && this.status < 200);
    this.remaining = bodiless ? 0 : (length ?? 0);
    this.phase = bodiless ? 'body' : chunked ? 'chunk-size' : length !== null ? 'body' : 'until-close';
    return this.phase === 'body' && this.remaining === 0;
  }

  private finish(): void {
    const waiting = this.waiting!;
    this.waiting = null;
    if (this.closeAfter) this.close();
    waiting.resolve({ status: this.status, bodyBytes: this.bodyBytes });
  }

  private fail(err: Error): void {
    const waiting = this.waiting;
    this.waiting = null;
    this.close();
    waiting?.reject(err);
  }
}

/** What one route group collects during the measured window. */
class Tally {
  readonly latencies: number[] = [];
  readonly statuses: Record<string, number> = {};
  readonly socketErrors: Record<string, number> = {};
  errors = 0;
  bytes = 0;

  figures(): Figures {
    const sorted = this.latencies.sort((a, b) => a - b);
    return {
      requests: sorted.length,
      errors: this.errors,
      statuses: this.statuses,
      socketErrors: this.socketErrors,
      p50: percentile(sorted, 0.5),
      p90: percentile(sorted, 0.9),
      p99: percentile(sorted, 0.99),
      p999: percentile(sorted, 0.999),
      max: sorted[sorted.length - 1] ?? Number.NaN,
      bytes: this.bytes,
    };
  }

  static merge(tallies: Tally[]): Tally {
    const all = new Tally();
    for (const t of tallies) {
      for (const x of t.latencies) all.latencies.push(x);
      for (const [k, v] of Object.entries(t.statuses)) all.statuses[k] = (all.statuses[k] ?? 0) + v;
      for (const [k, v] of Object.entries(t.socketErrors)) all.socketErrors[k] = (all.socketErrors[k] ?? 0) + v;
      all.errors += t.errors;
      all.bytes += t.bytes;
    }
    return all;
  }
}

async function run(job: DriverJob, onPhase: (phase: DriverPhase) => void): Promise<DriverResult> {
  const { hostname, port } = new URL(job.origin);
  const tallies = (job.groups ?? ['all']).map(() => new Tally());
  const maxRequests = job.maxRequests ?? Number.POSITIVE_INFINITY;
  let allRequests = 0;
  let measuredRequests = 0;
  let stoppedByCount = false;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const measureFrom = start + job.warmupSeconds * 1000;
  let end = measureFrom + job.seconds * 1000;
  const opened = setTimeout(() => onPhase('measure'), job.warmupSeconds * 1000);
  const interval = job.rate ? (1000 * job.connections) / job.rate : 0;
  const worker = async (w: number) => {
    const connection = new Connection(hostname, Number(port));
    let i = Math.floor((w * job.paths.length) / job.connections);
    let due = start + (interval * w) / job.connections;
    for (;;) {
      if (interval > 0) {
        // A timer fires a millisecond late at best: at more than a thousand requests a second on
        // a connection, sleeping for every sub-millisecond wait made the schedule drift further
        // behind at each request (bare Hono's half-load p99 read 109 ms). A wait under a
        // millisecond is spent sending at once; the schedule, not the timer, decides.
        const wait = due - performance.now();
        if (wait >= 1) await new Promise((done) => setTimeout(done, wait));
      }
      // behind schedule, latency counts from when the request was due; sent a little early, from now
      const t0 = interval > 0 ? Math.max(due, performance.now()) : performance.now();
      due += interval;
      if (t0 >= end) return connection.close();
      if (t0 >= measureFrom && measuredRequests >= maxRequests) {
        stoppedByCount = true;
        end = Math.min(end, t0);
        return connection.close();
      }
      if (t0 >= measureFrom) measuredRequests++;
      const k = i++ % job.paths.length;
      const tally = tallies[job.groupOf?.[k] ?? 0]!;
      allRequests++;
      try {
        const res = await connection.get(job.paths[k]!);
        const t1 = performance.now();
        if (t0 >= measureFrom && t1 <= end) {
          tally.latencies.push(t1 - t0);
          tally.bytes += res.bodyBytes;
          tally.statuses[res.status] = (tally.statuses[res.status] ?? 0) + 1;
          if (res.status < 200 || res.status >= 300) tally.errors++;
        }
      } catch (err) {
        const t1 = performance.now();
        if (t0 >= measureFrom && t1 <= end) {
          const code = (err as { code?: string }).code ?? 'closed';
          tally.socketErrors[code] = (tally.socketErrors[code] ?? 0) + 1;
        }
        await new Promise((done) => setTimeout(done, 10)); // a refused connection must not spin
      }
    }
  };
  await Promise.all(Array.from({ length: job.connections }, (_, w) => worker(w)));
  clearTimeout(opened);
  onPhase('end');
  const cpu = process.cpuUsage(cpu0);
  const seconds = stoppedByCount ? Math.max(0.001, (end - measureFrom) / 1000) : job.seconds;
  const overall = Tally.merge(tallies).figures();
  return {
    ...overall,
    allRequests,
    seconds,
    rps: overall.requests / seconds,
    cpuMs: (cpu.user + cpu.system) / 1000,
    byGroup: tallies.length === 1 ? [overall] : tallies.map((t) => t.figures()),
    stoppedByCount,
  };
}

// run only as the forked driver, not when imported (by its tests)
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', (job: DriverJob) => {
    run(job, (phase) => process.send!({ phase })).then(
      (result) => process.send!({ ok: true, result }, undefined, {}, () => process.exit(0)),
      (err: unknown) => process.send!({ ok: false, error: err instanceof Error ? err.stack : String(err) }, undefined, {}, () => process.exit(1)),
    );
  });
}
