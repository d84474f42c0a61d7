import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { logLineTime } from './log-time.js';

export type { Logger };

/** Bytes of log lines gathered before a write. */
const LOG_BATCH_BYTES = 16 * 1024;
/** The longest a line waits to be written on a quiet server. */
const LOG_FLUSH_MS = 250;

/** pino's asynchronous file destination (sonic-boom). */
type SonicBoom = ReturnType<typeof pino.destination>;

/**
 * Structured JSON logs; API keys never reach a log line. By default lines go to stdout through
 * an asynchronous destination that gathers them: a write is made once 16 KiB have gathered, or
 * every 250 ms, so a busy server makes one write for some sixty request lines instead of one each
 * (a write per line, each through the thread pool, cost some 6 µs a request; one per 4 KiB still
 * some 4 µs in a CPU profile of a search under load). pino writes what is
 * left when the process exits, and `logger.flush()` does so on demand. Tests pass their own
 * stream to read lines.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'tagwise' },
      redact: { paths: ['key', 'query.key', 'req.query.key', 'headers.authorization', 'req.headers.authorization'], censor: '[redacted]' },
      timestamp: logLineTime,
    },
    // (a write may carry more than a batch, when lines came while the last one was under way)
    destination ?? linesAsBytes(pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, maxWrite: 4 * LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS, contentMode: 'buffer' })),
  );
}

/**
 * The destination handed each line as UTF-8 bytes. Why: given text, sonic-boom appends each line
 * to the batch under way as one growing string and measures that string's UTF-8 length on every
 * line, a copy of the whole batch each time (some 4 µs a request at 16 KiB batches, in a CPU
 * profile of `GET /images/:id` under load); given bytes, it adds up the lines' own lengths and
 * joins them once, when the batch is written. Writing what is left at exit stays sonic-boom's
 * (pino registered it for `out`).
 */
function linesAsBytes(out: SonicBoom): DestinationStream & Pick<SonicBoom, 'flush' | 'flushSync' | 'end'> {
  return {
    write: (line: string) => out.write(Buffer.from(line) as unknown as string),
    flush: (cb?: (err?: Error) => unknown) => out.flush(cb),
    flushSync: () => out.flushSync(),
    end: () => out.end(),
  };
}
