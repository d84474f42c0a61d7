/**
 * Decodes in child processes that can be killed. sharp's work runs on libuv's threadpool and
 * cannot be cancelled from JavaScript (a worker thread's `terminate()` does not stop it either), so
 * a decode that runs long or big in the server's own process holds its threads, its memory and
 * everything else queued on that pool (file writes, the log) until it ends by itself. Here each
 * decode runs in a forked Node process (child.ts) that the pool kills with SIGKILL, its process
 * group included (the ffmpeg it started), when:
 * - the decode passes its deadline (`deadlineMs`),
 * - the child's resident memory passes `memoryMb` (sampled every 50 ms from /proc),
 * - the caller gives up (`signal`: a client that hung up), or
 * - the pool closes (shutdown).
 * The first two are the file's fault: a `MediaError` saying it costs too much to decode. A child
 * that dies by itself (a decoder crash) is a corrupt file.
 *
 * At most `size` decodes run at once; `maxWaiting` more wait, each at most `maxWaitMs`; beyond
 * either the caller gets `DecodeQueueFull` (503 with Retry-After). Children start when first needed
 * (or at `warm()`), are kept for the next decode, and run at a lower CPU priority than the server
 * (nice 10), so decodes use the cores the server leaves idle rather than those of its answers.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MediaError } from '../errors.js';
import type { ChildReply, ChildRequest } from './protocol.js';
import type { SandboxTask, SandboxTasks } from './tasks.js';

/** No decode slot could be had in time: the caller should answer 503 with `Retry-After`. */
export class DecodeQueueFull extends Error {
  override name = 'DecodeQueueFull';
  readonly retryAfterSeconds = 2;
  constructor() {
    super('Too many images are being decoded; retry shortly');
  }
}

export interface SandboxOptions {
  /** Decodes running at once, one child each. */
  size: number;
  /** Decodes waiting for a turn; one more is refused with `DecodeQueueFull`. */
  maxWaiting: number;
  /** Longest wait for a turn before `DecodeQueueFull`. */
  maxWaitMs: number;
  /** Longest decode; the child is killed past it. */
  deadlineMs: number;
  /** Largest resident memory of a child, in MB; the child is killed past it. */
  memoryMb: number;
}

/** Why the pool killed a child, counted for tests and diagnostics. */
export type KillReason = 'deadline' | 'memory' | 'abandoned' | 'closed';

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Waiter {
  grant(): void;
  refuse(error: Error): void;
}

const MEMORY_SAMPLE_MS = 50;
/** A child that has not said it is ready by then (a machine far too busy) is given up. */
const START_TIMEOUT_MS = 60_000;
/** Lower CPU priority of the children (0 is the server's; 19 the lowest). */
const CHILD_NICENESS = 10;

/** Every child alive, killed when this process exits however it does (they would outlive it). */
const everyChild = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of everyChild) killGroup(child);
});

const childEntry = new URL(`./child${fileURLToPath(import.meta.url).endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/** Node flags of a child: the TypeScript loader when running from source, as the server does. */
function childExecArgv(): string[] {
  const loader = childEntry.pathname.endsWith('.ts') ? ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] : [];
  return [...loader, '--max-old-space-size=256'];
}

function residentMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** SIGKILL to the child's process group (it leads one: `detached`), so its ffmpeg dies with it. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

export class DecodeSandbox {
  #active = 0;
  #nextId = 1;
  #closed = false;
  /** Whether `warm()` was asked for: children are then replaced as they end. */
  #warmed = false;
  readonly #idle: ChildProcess[] = [];
  readonly #all = new Set<ChildProcess>();
  readonly #waiting: Waiter[] = [];
  /** Settles when a child has loaded and said so (its first message). */
  readonly #ready = new WeakMap<ChildProcess, Promise<void>>();
  /** Children killed by the pool, by reason. */
  readonly kills: Record<KillReason, number> = { deadline: 0, memory: 0, abandoned: 0, closed: 0 };

  #options: SandboxOptions;

  constructor(options: SandboxOptions) {
    this.#options = options;
  }

  get options(): Readonly<SandboxOptions> {
    return this.#options;
  }

  /** The deadline of the decodes started from now on (the service's setting). */
  setDeadline(ms: number): void {
    this.#options = { ...this.#options, deadlineMs: ms };
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Process ids of the children alive now. */
  get pids(): number[] {
    return [...this.#all].flatMap((c) => (c.pid === undefined ? [] : [c.pid]));
  }

  /**
   * Starts children up to `size` ahead of the decodes, which would otherwise wait for one to load
   * (a second or two); called again whenever a child ends, so a killed one is replaced at once.
   */
  warm(): void {
    this.#warmed = true;
    while (!this.#closed && this.#all.size < this.options.size) this.#idle.push(this.#spawn());
  }

  /** Runs `task` on `bytes` in a child; see the module comment for how it ends. */
  async run<T extends SandboxTask>(task: T, bytes: Buffer, options: SandboxTasks[T]['options'], signal?: AbortSignal): Promise<SandboxTasks[T]['result']> {
    signal?.throwIfAborted();
    await this.#enter(signal);
    try {
      return (await this.#runInChild(task, bytes, options, signal)) as SandboxTasks[T]['result'];
    } finally {
      this.#leave();
    }
  }

  /** Kills every child and refuses every waiting and later decode. */
  close(): void {
    this.#closed = true;
    for (const waiter of this.#waiting.splice(0)) waiter.refuse(new DecodeQueueFull());
    for (const child of this.#all) {
      if (!this.#idle.includes(child)) this.kills.closed++;
      killGroup(child);
    }
    this.#idle.length = 0;
  }

  async #enter(signal?: AbortSignal): Promise<void> {
    if (this.#closed) throw new DecodeQueueFull();
    if (this.#active < this.options.size) {
      this.#active++;
      return;
    }
    if (this.#waiting.length >= this.options.maxWaiting) throw new DecodeQueueFull();
    await new Promise<void>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.#waiting.indexOf(waiter);
        if (at >= 0) this.#waiting.splice(at, 1);
      };
      const waiter: Waiter = {
        grant: () => (done(), resolve()),
        refuse: (error) => (done(), reject(error)),
      };
      const onAbort = () => waiter.refuse(signal?.reason as Error);
      const timer = setTimeout(() => waiter.refuse(new DecodeQueueFull()), this.options.maxWaitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #leave(): void {
    const next = this.#waiting[0];
    // The slot passes straight to the next waiter, so `active` never drops below the load.
    if (next) next.grant();
    else this.#active--;
  }

  #spawn(): ChildProcess {
    const child = fork(fileURLToPath(childEntry), [], {
      detached: true,
      execArgv: childExecArgv(),
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: { ...process.env, MALLOC_ARENA_MAX: '2' },
    });
    this.#all.add(child);
    everyChild.add(child);
    this.#ready.set(child, new Promise<void>((resolve) => child.once('message', () => resolve())));
    child.once('exit', () => {
      this.#all.delete(child);
      everyChild.delete(child);
      const at = this.#idle.indexOf(child);
      if (at >= 0) this.#idle.splice(at, 1);
      if (this.#warmed) setImmediate(() => this.warm());
    });
    child.on('error', () => killGroup(child));
    try {
      if (child.pid !== undefined) setPriority(child.pid, CHILD_NICENESS);
    } catch {
      // Not permitted here: the children then share the server's priority.
    }
    child.unref();
    child.channel?.unref();
    return child;
  }

  async #runInChild(task: SandboxTask, bytes: Buffer, options: unknown, signal?: AbortSignal): Promise<unknown> {
    const child = this.#idle.pop() ?? this.#spawn();
    child.channel?.ref();
    let outcome: Outcome;
    try {
      outcome = await this.#exchange(child, { id: this.#nextId++, task, bytes, options }, signal);
    } finally {
      child.channel?.unref();
    }
    if (this.#all.has(child) && !this.#closed) this.#idle.push(child);
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /** Sends one request once the child is ready and waits for its reply, its death or a kill. */
  #exchange(child: ChildProcess, request: ChildRequest, signal?: AbortSignal): Promise<Outcome> {
    return new Promise((resolve) => {
      let settled = false;
      let deadline: NodeJS.Timeout | undefined;
      let sampler: NodeJS.Timeout | undefined;
      let killedFor: KillReason | undefined;
      const startTimer = setTimeout(() => kill('deadline'), START_TIMEOUT_MS);
      const finish = (result: Outcome) => {
        settled = true;
        clearTimeout(startTimer);
        clearTimeout(deadline);
        clearInterval(sampler);
        child.off('message', onMessage);
        child.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      const kill = (reason: KillReason) => {
        if (killedFor) return;
        killedFor = reason;
        this.kills[reason]++;
        killGroup(child);
      };
      const start = () => {
        if (settled || killedFor) return;
        clearTimeout(startTimer);
        deadline = setTimeout(() => kill('deadline'), this.options.deadlineMs);
        sampler = setInterval(() => {
          if (child.pid !== undefined && residentMb(child.pid) > this.options.memoryMb) kill('memory');
        }, MEMORY_SAMPLE_MS);
        child.send(request);
      };
      const onMessage = (reply: ChildReply) => {
        if ('ready' in reply || reply.id !== request.id) return;
        if (reply.ok) return finish({ ok: true, value: reply.value });
        if ('media' in reply) return finish({ ok: false, error: new MediaError(reply.media.field, reply.media.message, { errors: reply.media.errors }) });
        finish({ ok: false, error: new Error(`decode failed: ${reply.message}`) });
      };
      const onExit = (code: number | null, signalName: NodeJS.Signals | null) => {
        if (killedFor === 'abandoned') return finish({ ok: false, error: signal?.reason ?? new Error('decode abandoned') });
        if (this.#closed) return finish({ ok: false, error: new DecodeQueueFull() });
        if (killedFor) return finish({ ok: false, error: MediaError.tooCostly() });
        finish({ ok: false, error: MediaError.corrupt(new Error(`the decoding process ended (${signalName ?? code})`)) });
      };
      const onAbort = () => kill('abandoned');
      child.on('message', onMessage);
      child.once('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      void this.#ready.get(child)?.then(start);
    });
  }
}
