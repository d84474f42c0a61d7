/**
 * HTTP load driver, run as a child process (so that it does not share the server's event loop):
 * `connections` keep-alive connections, each sending the next path of the list as soon as its
 * previous answer is read (closed loop), or with `rate`, on a fixed schedule that spreads `rate`
 * requests a second over the connections (open loop), for `warmupSeconds` (not recorded) and
 * then `seconds`. Receives a DriverJob over IPC and answers a DriverResult.
 *
 * The driver shares the machine's two cores with the server, so its own cost per request is
 * counted against the server's latency. It speaks HTTP/1.1 on plain sockets and only counts the
 * bytes of an answer, as wrk or autocannon do: a general client (undici, reading each body into
 * a buffer) used about 0.38 ms of CPU per 45 KB answer, this one about 0.1 ms.
 */
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

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
  /** CPU the driver itself used, warm-up included, in ms. */
  cpuMs: number;
}

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

async function run(job: DriverJob): Promise<DriverResult> {
  const { hostname, port } = new URL(job.origin);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let allRequests = 0;
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const measureFrom = start + job.warmupSeconds * 1000;
  const end = measureFrom + job.seconds * 1000;
  const interval = job.rate ? (1000 * job.connections) / job.rate : 0;
  const worker = async (w: number) => {
    const connection = new Connection(hostname, Number(port));
    let i = Math.floor((w * job.paths.length) / job.connections);
    let due = start + (interval * w) / job.connections;
    for (;;) {
      if (interval > 0) {
        const wait = due - performance.now();
        if (wait > 0) await new Promise((done) => setTimeout(done, wait));
      }
      const t0 = interval > 0 ? due : performance.now();
      due += interval;
      if (t0 >= end) return connection.close();
      const path = job.paths[i++ % job.paths.length]!;
      const res = await connection.get(path);
      const t1 = performance.now();
      allRequests++;
      if (t0 >= measureFrom && t1 <= end) {
        latencies.push(t1 - t0);
        bytes += res.bodyBytes;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status < 200 || res.status >= 300) errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: job.connections }, (_, w) => worker(w)));
  const cpu = process.cpuUsage(cpu0);
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
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

// run only as the forked driver, not when imported (by its tests)
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  process.once('message', (job: DriverJob) => {
    run(job).then(
      (result) => process.send!({ ok: true, result }, undefined, {}, () => process.exit(0)),
      (err: unknown) => process.send!({ ok: false, error: err instanceof Error ? err.stack : String(err) }, undefined, {}, () => process.exit(1)),
    );
  });
}
