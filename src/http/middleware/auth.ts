/**
 * Key authentication (reference §5.1, steps 2–3): `?key=` names the caller. No key or an unknown
 * key is an anonymous caller, never an error. A key whose user is deactivated or has not confirmed
 * the account is refused with 403 `{"error":"Forbidden"}` (the reference sends an empty body; every
 * error of ours is JSON). No database query is made when there is no key, nor for a key the app's
 * key cache knows (`src/caches/key-cache.ts`).
 */
import { findUserByApiKey, isDeactivatedKey } from '../../contexts/users/api-keys.js';
import type { Database } from '../../db/client.js';
import type { AppContext } from '../context.js';
import { forbidden } from '../errors.js';
import type { KeyState } from '../../caches/key-cache.js';
import { queryParam } from '../request-query.js';

async function readKeyState(db: Database, key: string): Promise<KeyState> {
  const user = await findUserByApiKey(db, key);
  if (user) return user.confirmedAt === null ? { kind: 'refused', userId: user.id } : { kind: 'user', user };
  if (key.length <= 200 && (await isDeactivatedKey(db, key))) return { kind: 'refused', userId: null };
  return { kind: 'anonymous' };
}

async function authenticateKey(c: AppContext, key: string): Promise<Response | undefined> {
  const { db, caches } = c.get('deps');
  const state = caches ? await caches.keys.resolve(key, caches.feed.live, () => readKeyState(db, key)) : await readKeyState(db, key);
  if (state.kind === 'refused') return forbidden(c);
  if (state.kind === 'user') c.set('user', state.user);
  return undefined;
}

/**
 * Sets the request's `user` (null when anonymous); the refusal's answer when the key is refused.
 * An anonymous request is settled at once, without a promise.
 */
export function authenticate(c: AppContext): Promise<Response | undefined> | undefined {
  c.set('user', null);
  const key = queryParam(c, 'key');
  return key ? authenticateKey(c, key) : undefined;
}
