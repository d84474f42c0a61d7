/**
 * A pool's guard against a database that stops answering without going away (a frozen server,
 * a host that hangs, a network that drops packets). A dead server refuses or resets connections
 * at once, and postgres.js reports that; a frozen one keeps its sockets open and its kernel keeps
 * accepting connections, so a query, a connection's start-up or a COMMIT would wait for ever, and
 * the pool's queue behind them would grow. PostgreSQL's own timeouts cannot help: it is the
 * server that is stopped.
 *
 * The guard hands postgres.js its sockets (its `socket` option) and watches them: a socket that
 * sent something and has heard nothing back for `stallMs` is stalled. A long query is stalled too
 * by that measure, so the guard then asks the server a trivial question on a connection of its
 * own: if that is answered within `probeTimeoutMs`, the server is alive and slow, and nothing
 * happens. If not, the database is unresponsive: every socket waiting for an answer is destroyed
 * (its queries fail with CONNECTION_CLOSED), and until a probe is answered again new connections
 * fail at once (`DATABASE_UNRESPONSIVE`), so the pool's queue drains instead of growing; both are
 * answered 503 (`unavailable.ts`).
 * The server's side of a destroyed connection goes when it runs again; nothing is left behind.
 */
import { Socket } from 'node:net';
import postgres, { type Sql } from 'postgres';

/** The code of the error a connection made while the database is unresponsive fails with. */
export const UNRESPONSIVE_CODE = 'DATABASE_UNRESPONSIVE';

export interface StallGuardOptions {
  /** A socket waiting this long for an answer makes the guard probe the server. */
  stallMs: number;
  /** The probe's time to be answered, else the server is unresponsive. */
  probeTimeoutMs: number;
  /** How often sockets are checked. */
  tickMs?: number;
}

/** What postgres.js passes its `socket` option: where to connect. */
interface Target {
  host: string[];
  port: number[];
  path?: string | false;
}

/** postgres.js's options with `socket`, which it supports and its types leave out. */
export type SocketOptions = postgres.Options<Record<string, postgres.PostgresType>> & { socket?: (target: Target) => Socket };

function unresponsive(): Error {
  return Object.assign(new Error('the database did not answer in time'), { code: UNRESPONSIVE_CODE });
}

/** ReadyForQuery ('Z', length 5, status): the server is done with everything it was sent so far. */
function endsReady(last6: Buffer): boolean {
  return last6.length === 6 && last6[0] === 0x5a && last6.readInt32BE(1) === 5;
}

/** A socket that knows since when it has been waiting for an answer (0: it is not). */
class WatchedSocket extends Socket {
  awaitingSince = 0;
  private tail: Buffer = Buffer.alloc(0);

  constructor() {
    super();
    this.on('data', (chunk: Buffer) => {
      this.tail = chunk.length >= 6 ? chunk.subarray(-6) : Buffer.concat([this.tail, chunk]).subarray(-6);
      // data with nothing asked (a notification) starts no wait; an answer in parts renews it
      if (this.awaitingSince !== 0) this.awaitingSince = endsReady(this.tail) ? 0 : Date.now();
    });
  }

  /**
   * Counts a write as a question asked. Set once connecting has begun: `connect()` puts
   * `Socket.prototype.write` back on the instance (Node 20), over a subclass's own `write`.
   */
  watchWrites(): this {
    const write = this.write;
    this.write = ((...args: unknown[]) => {
      if (this.awaitingSince === 0) this.awaitingSince = Date.now();
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    }) as Socket['write'];
    return this;
  }
}

/**
 * A socket that fails as postgres.js first writes to it (its start-up message). Failing sooner,
 * from a timer of its own, can close it before postgres.js's deferred write: postgres.js then
 * cancels that write but keeps its handle, and never writes on that connection again.
 */
function failingSocket(): Socket {
  const socket = new Socket();
  socket.write = (() => {
    socket.destroy(unresponsive());
    return false;
  }) as Socket['write'];
  return socket;
}

function connectTo(target: Target, socket: Socket): Socket {
  return target.path ? socket.connect(target.path) : socket.connect(target.port[0] ?? 5432, target.host[0] ?? 'localhost');
}

export class StallGuard {
  private readonly sockets = new Set<WatchedSocket>();
  /** The probe's connection, kept while it answers; one that failed is dropped with its state. */
  private prober: { sql: Sql; socket?: Socket } | undefined;
  private down = false;
  private probing = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly url: string,
    private readonly options: StallGuardOptions,
  ) {
    this.timer = setInterval(() => this.tick(), options.tickMs ?? 200);
    this.timer.unref();
  }

  /** The pool's `socket` option: a watched socket, or one that fails at once while the database is unresponsive. */
  readonly socket = (target: Target): Socket => {
    if (this.down) return failingSocket();
    const socket = new WatchedSocket();
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    connectTo(target, socket);
    return socket.watchWrites();
  };

  close(): Promise<void> {
    clearInterval(this.timer);
    return this.dropProber();
  }

  private tick(): void {
    // while unresponsive, what asks meanwhile on a connection opened before fails by the next tick,
    // not after the probe under way
    if (this.down) this.destroyWaiting();
    if (this.probing) return;
    if (this.down) {
      void this.probe();
      return;
    }
    const now = Date.now();
    for (const socket of this.sockets) {
      if (socket.awaitingSince !== 0 && now - socket.awaitingSince >= this.options.stallMs) {
        void this.probe();
        return;
      }
    }
  }

  private async probe(): Promise<void> {
    this.probing = true;
    try {
      const answered = await this.answers();
      this.down = !answered;
      if (this.down) this.destroyWaiting();
      else {
        // slow, not stalled: look again after another stallMs
        const now = Date.now();
        for (const socket of this.sockets) if (socket.awaitingSince !== 0) socket.awaitingSince = now;
      }
    } finally {
      this.probing = false;
    }
  }

  /** Whether the server answers a trivial query (or answers with an error of its own) in time. */
  private async answers(): Promise<boolean> {
    const prober = (this.prober ??= this.newProber());
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), this.options.probeTimeoutMs)));
    let settled: 'answered' | 'failed' | undefined;
    const asked = prober.sql`select 1`.then(
      () => (settled = 'answered'),
      (err: unknown) => (settled = err instanceof postgres.PostgresError ? 'answered' : 'failed'),
    );
    let outcome = await Promise.race([asked, timedOut]);
    clearTimeout(timer);
    if (outcome === 'timeout') {
      // After the event loop was held up (a long synchronous task), timers run before the
      // sockets are read: let an answer that did arrive in time be read before giving up.
      await new Promise((resolve) => setImmediate(resolve));
      outcome = settled ?? 'timeout';
    }
    if (outcome !== 'answered') void this.dropProber();
    return outcome === 'answered';
  }

  private newProber(): { sql: Sql; socket?: Socket } {
    const prober: { sql: Sql; socket?: Socket } = { sql: undefined as unknown as Sql };
    const options: SocketOptions = {
      max: 1,
      onnotice: () => {},
      connection: { application_name: 'tagwise-probe' },
      socket: (target) => (prober.socket = connectTo(target, new Socket())),
    };
    prober.sql = postgres(this.url, options);
    return prober;
  }

  /** The probe's connection may be as stuck as the pool's: destroyed, not ended politely. */
  private async dropProber(): Promise<void> {
    const prober = this.prober;
    this.prober = undefined;
    if (!prober) return;
    prober.socket?.destroy();
    await prober.sql.end({ timeout: 0 }).catch(() => {});
  }

  /**
   * Destroyed without an error: postgres.js then fails, at the close, every query the connection
   * holds by then (CONNECTION_CLOSED). With an error it fails those it holds at the error and
   * forgets any it was given before the close, which then wait for ever.
   */
  private destroyWaiting(): void {
    for (const socket of this.sockets) if (socket.awaitingSince !== 0) socket.destroy();
  }
}
