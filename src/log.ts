import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** Structured JSON logs on stdout; API keys never reach a log line. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'tagwise' },
    redact: { paths: ['key', 'query.key', 'req.query.key', 'headers.authorization'], censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
