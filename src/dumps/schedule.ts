/**
 * The nightly dump in the service: a timer that runs `writeDump` once a day at `DUMP_AT` (UTC).
 *
 * Every API process may run the timer. The dump's advisory lock lets one of them dump while the
 * others skip ("busy"), and a process that gets the lock after another one finished finds that
 * day's dump in place and skips too ("exists"; processes sharing DATA_DIR dump once a day).
 * `stop()` clears the timer and stops a dump in progress between two batches, leaving nothing
 * behind.
 */
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import { openStorage } from '../media/storage-open.js';
import { DumpBusyError, writeDump, type DumpResult, type WriteDumpOptions } from './write.js';

export interface DumpTime {
  hour: number;
  minute: number;
}

/** The first moment strictly after `now` at the given UTC time of day. */
export function nextRunAt(now: Date, at: DumpTime): Date {
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), at.hour, at.minute));
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return next;
}

export type DumpRunOutcome =
  | { status: 'written'; result: DumpResult; ms: number }
  | { status: 'exists' }
  | { status: 'busy' }
  | { status: 'stopped' }
  | { status: 'failed'; error: unknown };

export interface DumpLogger {
  info(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface DumpScheduleOptions {
  db: Database;
  config: Pick<Config, 'storage' | 'cdnUrl' | 'anonymousNameSalt' | 'siteName' | 'baseUrl' | 'dumps'>;
  log?: DumpLogger;
  /** The clock (tests). */
  now?: () => Date;
  /** Passed on to writeDump (tests). */
  dump?: Partial<Pick<WriteDumpOptions, 'batchSize' | 'onProgress' | 'storage'>>;
}

const quiet: DumpLogger = { info: () => {}, error: () => {} };

export class DumpSchedule {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DumpRunOutcome> | undefined;
  private readonly abort = new AbortController();
  private stopped = false;
  /** When the timer fires next (undefined when not started or stopped). */
  nextRun: Date | undefined;

  constructor(private readonly options: DumpScheduleOptions) {}

  private get log(): DumpLogger {
    return this.options.log ?? quiet;
  }

  /** Arm the timer for the next `DUMP_AT` (nothing when dumps are off). */
  start(): this {
    const at = this.options.config.dumps.at;
    if (at === null || this.stopped) return this;
    const now = (this.options.now ?? (() => new Date()))();
    this.nextRun = nextRunAt(now, at);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.runNow().finally(() => this.start());
    }, this.nextRun.getTime() - now.getTime());
    // The timer alone must not keep a process alive.
    this.timer.unref();
    return this;
  }

  /**
   * Dump now, unless that day's dump exists or another dump runs. A second call while one runs in
   * this process waits for it and gets its outcome.
   */
  runNow(): Promise<DumpRunOutcome> {
    if (this.stopped) return Promise.resolve({ status: 'stopped' });
    this.running ??= this.run().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async run(): Promise<DumpRunOutcome> {
    const { db, config } = this.options;
    const started = Date.now();
    try {
      const result = await writeDump(db, {
        storage: openStorage(config.storage).area('dumps'),
        config,
        keep: config.dumps.keep,
        now: this.options.now?.(),
        ifMissing: true,
        signal: this.abort.signal,
        ...this.options.dump,
      });
      if (!result) {
        this.log.info({}, 'dump: today\'s dump exists already');
        return { status: 'exists' };
      }
      const ms = Date.now() - started;
      const records = Object.fromEntries(result.manifest.files.map((f) => [f.name, f.records]));
      this.log.info({ dump: result.name, ms, records }, 'dump written');
      return { status: 'written', result, ms };
    } catch (err) {
      if (err instanceof DumpBusyError) {
        this.log.info({}, 'dump: another process is dumping');
        return { status: 'busy' };
      }
      if (this.abort.signal.aborted) return { status: 'stopped' };
      this.log.error({ err }, 'dump failed');
      return { status: 'failed', error: err };
    }
  }

  /** Clear the timer; a dump in progress stops at its next batch and removes its files. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.nextRun = undefined;
    this.abort.abort();
    await this.running;
  }
}

/** The service's nightly dump, started; null when `DUMP_AT=off`. */
export function startDumpSchedule(options: DumpScheduleOptions): DumpSchedule | null {
  if (options.config.dumps.at === null) return null;
  return new DumpSchedule(options).start();
}
