import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { logLineTime } from './log-time.js';

export type { Logger };

/** Bytes of log lines gathered before a write. */
const LOG_BATCH_BYTES = 4096;
/** The longest a line waits to be written on a quiet server. */
const LOG_FLUSH_MS = 250;

/**
 * Structured JSON logs; API keys never reach a log line. By default lines go to stdout through
 * an asynchronous destination that gathers them: a write is made once 4 KiB have gathered, or
 * every 250 ms, so a busy server makes one write for dozens of request lines instead of one each
 * (a write per line, each through the thread pool, cost some 6 µs a request). pino writes what is
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
    destination ?? pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS }),
  );
}
