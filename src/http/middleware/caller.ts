/**
 * Who is asking, under `/api/v1/json` and the socket: key auth (auth.ts), the request limits
 * (limits.ts) and the current filter (filter.ts), in that order, as one layer of middleware. A
 * request settled at once by each (anonymous, known not to be banned) passes on without a
 * promise of this layer's own.
 */
import type { MiddlewareHandler, Next } from 'hono';
import type { AppContext, AppEnv } from '../env/context.js';
import { authenticate } from './auth.js';
import { attachCurrentFilter } from './filter.js';
import type { LimitCheck } from './limits.js';

/** What a middleware answers: a promise of its refusal's answer, or of nothing once `next` ran. */
type Passed = ReturnType<MiddlewareHandler<AppEnv>>;

export function caller(limits?: LimitCheck): MiddlewareHandler<AppEnv> {
  const proceed = (c: AppContext, next: Next) => {
    attachCurrentFilter(c);
    return next();
  };
  const afterAuth = (c: AppContext, next: Next): Passed => {
    const refusal = limits?.(c);
    if (refusal === undefined) return proceed(c, next);
    if (refusal instanceof Response) return Promise.resolve(refusal);
    return refusal.then((refused): Passed | Response => refused ?? proceed(c, next));
  };
  return (c, next) => {
    const refusal = authenticate(c);
    if (refusal === undefined) return afterAuth(c, next);
    return refusal.then((refused): Passed | Response => refused ?? afterAuth(c, next));
  };
}
