/**
 * The caller's state when PostgreSQL cannot be reached: the key and ban caches answer from memory
 * with the last state they read (a ban cannot be made or lifted meanwhile), and an identity never
 * read still fails as before; so do the ids of merged and deleted images (the file routes').
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUserByApiKey } from '../../src/contexts/users/api-keys.js';
import { banUser } from '../../src/contexts/users/bans.js';
import { issueKey } from '../../src/contexts/users/keys.js';
import { createDatabase, type Database } from '../../src/db/client.js';
import { KeyCache, type KeyState } from '../../src/caches/key-cache.js';
import { BanCache } from '../../src/caches/ban-cache.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { HiddenImageIds } from '../../src/caches/hidden-image-ids.js';
import { insertImage, insertUser } from './harness.js';

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
  it('leaves the merged and deleted images known from memory, so files stay served or withheld', async () => {
    const outage = createDatabase(t.url, { max: 1 });
    const shown = await insertImage(t.db, {});
    const deleted = await insertImage(t.db, { values: { hiddenFromUsers: true, deletionReason: 'Rule #3' } });
    const changed = await insertImage(t.db, {});
    const hidden = new HiddenImageIds();
    expect(await hidden.isHidden(outage, shown.id, true)).toBe(false);
    expect(await hidden.isHidden(outage, deleted.id, true)).toBe(true);
    hidden.onChange({ kind: 'images', id: changed.id });
    await outage.$client.end({ timeout: 1 });
    // changes not heard (not live): PostgreSQL is asked, fails, and what was read answers
    expect(await hidden.isHidden(outage, shown.id, false)).toBe(false);
    expect(await hidden.isHidden(outage, deleted.id, false)).toBe(true);
    // an image changed since it was read cannot be answered
    await expect(hidden.isHidden(outage, changed.id, false)).rejects.toThrow();
  });

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
