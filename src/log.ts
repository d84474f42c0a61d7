import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { logLineTime } from './log-time.js';

export type { Logger };

/**
 * Structured JSON logs; API keys never reach a log line. By default lines go to stdout through
 * an asynchronous destination (a synchronous write per line costs throughput; pino flushes it
 * on exit, and `logger.flush()` does so on demand). Tests pass their own stream to read lines.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { service: 'tagwise' },
      redact: { paths: ['key', 'query.key', 'req.query.key', 'headers.authorization', 'req.headers.authorization'], censor: '[redacted]' },
      timestamp: logLineTime,
    },
    destination ?? pino.destination({ dest: 1, sync: false }),
  );
}
