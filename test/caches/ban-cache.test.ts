/**
 * The ban cache against a real database: a ban the limiter issues here is known at once, to every
 * identity it concerns, whatever lookups were under way when it was issued.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BanCache } from '../../src/caches/ban-cache.js';
import type { Database } from '../../src/db/client.js';
import { issueAutomaticBan } from '../../src/contexts/users/active-bans.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { insertUser } from '../http/harness.js';

let t: TestDatabase;

beforeAll(async () => {
  t = await createTestDatabase();
});

afterAll(async () => {
  await t?.drop();
});

describe('the ban cache', () => {
  it('keeps a ban remembered here over a lookup that read PostgreSQL before the ban', async () => {
    const user = await insertUser(t.db, { name: 'racer', confirmedAt: new Date() });
    // the database as a slow moment sees it: each answer read, then handed back when let go
    let letGo!: () => void;
    let wasRead!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const read = new Promise<void>((resolve) => (wasRead = resolve));
    const slow = Object.create(t.db) as Database;
    slow.execute = (async (query: Parameters<Database['execute']>[0]) => {
      const rows = await t.db.execute(query);
      wasRead();
      await held;
      return rows;
    }) as Database['execute'];
    const bans = new BanCache(slow, 60_000);
    const who = { userId: user.id, ip: '10.1.2.3' };
    // a request of the caller looks it up and reads "none"; that answer arrives after the ban
    const inFlight = bans.lookup(who);
    await read;
    const issued = await issueAutomaticBan(t.db, who, 'Too many requests', 600);
    bans.remember(who, issued);
    letGo();
    expect(await inFlight).toBeUndefined();
    // the next request, before the ban's announcement is heard, is refused
    expect(bans.known(who)?.ban?.id).toBe(issued.id);
    expect((await bans.lookup(who))?.id).toBe(issued.id);
  });

  it('a ban of a user remembered here reaches the identities of that user known before it', async () => {
    const user = await insertUser(t.db, { name: 'reader', confirmedAt: new Date() });
    const bans = new BanCache(t.db, 60_000);
    // a read request is the user from an address; the upload limiter bans the user alone
    const reading = { userId: user.id, ip: '10.1.2.4' };
    expect(await bans.lookup(reading)).toBeUndefined();
    expect(bans.known(reading)).toEqual({ ban: undefined });
    const issued = await issueAutomaticBan(t.db, { userId: user.id }, 'Too many requests', 600);
    bans.remember({ userId: user.id }, issued);
    // before the ban's announcement is heard, the read request is refused too
    expect(bans.known(reading)).toBeUndefined();
    expect((await bans.lookup(reading))?.id).toBe(issued.id);
  });
});
