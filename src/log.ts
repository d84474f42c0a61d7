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
 * a destination that gathers them: a write is made once 16 KiB have gathered, or every 250 ms, so
 * a busy server makes one write for some sixty request lines instead of one each (a write per
 * line, each through the thread pool, cost some 6 µs a request; one per 4 KiB still some 4 µs in
 * a CPU profile of a search under load). The writes are synchronous: one system call per batch
 * costs a request well under a microsecond, and what pino writes when the process exits cannot
 * overtake a batch still under way in the thread pool (asynchronous, 1 exit in 8 wrote its last
 * lines before the batch before them). `logger.flush()` writes on demand. Tests pass their own
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
    destination ?? linesAsBytes(pino.destination({ dest: 1, sync: true, minLength: LOG_BATCH_BYTES, maxWrite: 4 * LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS, contentMode: 'buffer' })),
  );
}

/**
 * The destination handed each line as UTF-8 bytes. Why: given text, sonic-boom appends each line
 * to the batch under way as one growing string and measures that string's UTF-8 length on every
 * line, a copy of the whole batch each time (some 4 µs a request at 16 KiB batches, in a CPU
 * profile of `GET /images/:id` under load); given bytes, it adds up the lines' own lengths and
 * joins them once, when the batch is written. What is gathered when the process exits is
 * written then (pino registers that for asynchronous destinations only).
 */
function linesAsBytes(out: SonicBoom): DestinationStream & Pick<SonicBoom, 'flush' | 'flushSync' | 'end'> {
  writtenAtExit(out);
  return {
    write: (line: string) => out.write(Buffer.from(line) as unknown as string),
    flush: (cb?: (err?: Error) => unknown) => out.flush(cb),
    flushSync: () => out.flushSync(),
    end: () => out.end(),
  };
}

/** The destinations whose gathered lines are written when the process exits. */
const gathering = new Set<SonicBoom>();
let exitHooked = false;

function writtenAtExit(out: SonicBoom): void {
  if (!exitHooked) process.once('exit', writeGathered);
  exitHooked = true;
  gathering.add(out);
  out.once('close', () => gathering.delete(out));
}

function writeGathered(): void {
  for (const out of gathering) {
    try {
      out.flushSync();
    } catch {
      // stdout already closed: nothing can be written
    }
  }
}
