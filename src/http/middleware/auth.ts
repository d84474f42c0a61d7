/**
 * Key authentication (reference §5.1, steps 2–3): `?key=` names the caller. No key or an unknown
 * key is an anonymous caller, never an error. A key whose user is deactivated or has not confirmed
 * the account is refused with 403 `{"error":"Forbidden"}` (the reference sends an empty body; every
 * error of ours is JSON). No database query is made when there is no key.
 */
import type { MiddlewareHandler } from 'hono';
import { findUserByApiKey, isDeactivatedKey } from '../../contexts/users/api-keys.js';
import type { AppEnv } from '../context.js';
import { forbidden } from '../errors.js';

export function keyAuth(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.query('key');
    c.set('user', null);
    if (key) {
      const { db } = c.get('deps');
      const user = await findUserByApiKey(db, key);
      if (user) {
        if (user.confirmedAt === null) return forbidden(c);
        c.set('user', user);
      } else if (key.length <= 200 && (await isDeactivatedKey(c.get('deps').db, key))) {
        return forbidden(c);
      }
    }
    await next();
  };
}
