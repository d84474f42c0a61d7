/**
 * The caller's state when PostgreSQL cannot be reached: the key and ban caches answer from memory
 * with the last state they read (a ban cannot be made or lifted meanwhile), and an identity never
 * read still fails as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByApiKey } from '../../src/contexts/users/api-keys.js';
import { banUser } from '../../src/contexts/users/bans.js';
import { issueKey } from '../../src/contexts/users/keys.js';
import { createDatabase, type Database } from '../../src/db/client.js';
import { KeyCache, type KeyState } from '../../src/http/key-cache.js';
import { BanCache } from '../../src/limits/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { insertUser } from './harness.js';

let t: TestDatabase;
/** A pool of its own, ended to play the outage. */
let pool: Database;
let userId: number;
let key: string;

beforeAll(async () => {
  t = await createTestDatabase();
  const user = await insertUser(t.db, { name: 'frank', confirmedAt: new Date() });
  userId = user.id;
  key = (await issueKey(t.db, 'frank')).key;
  await banUser(t.db, 'frank', { reason: 'spam', until: null });
  pool = createDatabase(t.url, { max: 1 });
});

afterAll(async () => {
  await t?.drop();
});

describe('an outage of PostgreSQL', () => {
  it('leaves the key and ban caches answering from memory what they read last', async () => {
    const bans = new BanCache(pool, 1_000);
    const keys = new KeyCache();
    const readKey = (k: string) => async (): Promise<KeyState> => {
      const user = await findUserByApiKey(pool, k);
      return user ? { kind: 'user', user } : { kind: 'anonymous' };
    };
    expect((await bans.lookup({ userId }))?.reason).toBe('spam');
    expect((await keys.resolve(key, false, readKey(key))).kind).toBe('user');

    await pool.$client.end({ timeout: 1 });
    // long past the ban cache's ttl, and with changes not heard (not live): both read again, fail,
    // and fall back on what they know
    const later = Date.now() + 60_000;
    expect((await bans.lookup({ userId }, later))?.reason).toBe('spam');
    const state = await keys.resolve(key, false, readKey(key));
    expect(state.kind === 'user' && state.user.id).toBe(userId);
    // what was never read cannot be answered
    await expect(bans.lookup({ userId: userId + 1 }, later)).rejects.toThrow();
    await expect(keys.resolve('another-key', false, readKey('another-key'))).rejects.toThrow();
  });
});
