/**
 * The ban cache against a real database: a ban the limiter issues here is known at once, whatever
 * lookups of the same caller were under way when it was issued.
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
});
