/**
 * The lines of one request: the app's pino logger with the request's id put in each line, which
 * is what a child logger writes (`reqId` after the base bindings), without making a child logger
 * for every request (that cost more than the request line itself).
 */
import type { Logger } from 'pino';

export class RequestLogger {
  constructor(
    private readonly base: Logger,
    private readonly reqId: string,
  ) {}

  debug(obj: object, msg?: string): void {
    if (this.base.isLevelEnabled('debug')) this.base.debug({ reqId: this.reqId, ...obj }, msg);
  }
  info(obj: object, msg?: string): void {
    if (this.base.isLevelEnabled('info')) this.base.info({ reqId: this.reqId, ...obj }, msg);
  }
  warn(obj: object, msg?: string): void {
    if (this.base.isLevelEnabled('warn')) this.base.warn({ reqId: this.reqId, ...obj }, msg);
  }
  error(obj: object, msg?: string): void {
    if (this.base.isLevelEnabled('error')) this.base.error({ reqId: this.reqId, ...obj }, msg);
  }
}

