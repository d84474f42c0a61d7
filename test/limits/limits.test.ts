import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findActiveBan } from '../../src/contexts/users/active-bans.js';
import { parseRate, RefusalMemory, RequestLimiter, searchCost, TokenBuckets, ViolationCounter } from '../../src/limits/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

describe('token buckets', () => {
  it('allow a burst, then refill continuously', () => {
    const b = new TokenBuckets({ capacity: 3, refillPerSecond: 1 });
    expect([1, 2, 3].map(() => b.take('a', 1, 0).ok)).toEqual([true, true, true]);
    expect(b.take('a', 1, 0)).toEqual({ ok: false, retryAfterSeconds: 1 });
    expect(b.take('b', 1, 0).ok).toBe(true); // identities are separate
    expect(b.take('a', 1, 1000).ok).toBe(true);
    expect(b.take('a', 1, 1000).ok).toBe(false);
  });

  it('charge expensive requests more, and say how long to wait', () => {
    const b = new TokenBuckets({ capacity: 10, refillPerSecond: 2 });
    expect(b.take('a', 8, 0).ok).toBe(true);
    expect(b.take('a', 6, 0)).toEqual({ ok: false, retryAfterSeconds: 2 });
  });

  it('stay bounded in memory', () => {
    const b = new TokenBuckets({ capacity: 1, refillPerSecond: 1 }, 2);
    b.take('a', 1, 0);
    b.take('b', 1, 0);
    b.take('c', 1, 0); // forgets a
    expect(b.take('a', 1, 0).ok).toBe(true);
  });
});

describe('rates, costs, violations', () => {
  it('parse rates', () => {
    expect(parseRate('30/5s')).toEqual({ capacity: 30, refillPerSecond: 6 });
    expect(parseRate('10/1m')).toEqual({ capacity: 10, refillPerSecond: 10 / 60 });
    expect(parseRate('100/h')).toEqual({ capacity: 100, refillPerSecond: 100 / 3600 });
    expect(() => parseRate('lots')).toThrow(/rate like/);
  });

  it('cost more for wildcards and deep pages', () => {
    expect(searchCost('safe', 1, 25)).toBe(1);
    expect(searchCost('a*, b?', 1, 25)).toBe(3);
    expect(searchCost('a\\*', 1, 25)).toBe(1);
    expect(searchCost('safe', 500, 50)).toBe(3);
    expect(searchCost('safe', 5000, 50)).toBe(6);
  });

  it('count violations in a sliding window', () => {
    const v = new ViolationCounter(1000);
    expect(v.record('a', 0)).toBe(1);
    expect(v.record('a', 500)).toBe(2);
    expect(v.record('a', 1600)).toBe(1);
  });
});

describe('refusal memory', () => {
  it('tells a client that came back within its wait from one that waited, or sent alongside', () => {
    const m = new RefusalMemory();
    expect(m.cameBackEarly('a', 0)).toBe(false);
    m.told('a', 2, 1000);
    expect(m.cameBackEarly('a', 1000)).toBe(false); // sent before it could read the answer
    expect(m.cameBackEarly('a', 1001)).toBe(true);
    expect(m.cameBackEarly('b', 1001)).toBe(false);
    expect(m.cameBackEarly('a', 2999)).toBe(true);
    expect(m.cameBackEarly('a', 3000)).toBe(false); // waited as told
  });

  it('keeps the longest wait a client was given, and stays bounded', () => {
    const m = new RefusalMemory(2);
    m.told('a', 10, 0);
    m.told('a', 1, 500); // a shorter wait given later does not shorten it
    expect(m.cameBackEarly('a', 9_000)).toBe(true);
    m.told('b', 10, 0);
    m.told('c', 10, 0); // forgets a
    expect(m.cameBackEarly('a', 1)).toBe(false);
    expect(m.cameBackEarly('c', 1)).toBe(true);
  });
});

describe('request limiter', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
    await t.db.execute(sql`insert into users (id, name, slug) values (1, 'Heavy', 'heavy'), (2, 'Light', 'light')`);
  });
  afterAll(() => t.drop());

  const policy = {
    budgets: { read: { capacity: 2, refillPerSecond: 1 }, search: { capacity: 1, refillPerSecond: 1 }, upload: { capacity: 1, refillPerSecond: 0.01 } },
    banAfterViolations: 3,
    violationWindowSeconds: 60,
    banSeconds: 600,
  };

  it('limits, then bans repeated violators in the database, shared by every process', async () => {
    const limiter = new RequestLimiter(t.db, policy);
    const who = { ip: '203.0.113.7' };
    expect((await limiter.check(who, 'search', 1, 0)).kind).toBe('ok');
    expect(await limiter.check(who, 'search', 1, 0)).toEqual({ kind: 'limited', retryAfterSeconds: 1 });
    expect((await limiter.check(who, 'read', 1, 0)).kind).toBe('ok'); // budgets are separate
    expect((await limiter.check(who, 'search', 1, 0)).kind).toBe('limited');
    const third = await limiter.check(who, 'search', 1, 0);
    expect(third.kind).toBe('banned');

    // Another API process (a new limiter) sees the ban through PostgreSQL.
    const other = new RequestLimiter(t.db, policy);
    const seen = await other.check(who, 'read');
    expect(seen.kind).toBe('banned');
    if (seen.kind === 'banned') expect(seen.ban.validUntil!.getTime()).toBeGreaterThan(Date.now() + 500_000);
    expect(await findActiveBan(t.db, { ip: '203.0.113.8' })).toBeUndefined();
  });

  it('keys are limited per user, not per IP', async () => {
    const limiter = new RequestLimiter(t.db, policy);
    expect((await limiter.check({ userId: 2, ip: '198.51.100.1' }, 'upload', 1, 0)).kind).toBe('ok');
    expect((await limiter.check({ userId: 2, ip: '198.51.100.2' }, 'upload', 1, 0)).kind).toBe('limited');
  });

  it('honours bans made by operators, on users and IP ranges, until they expire or are lifted', async () => {
    await t.db.execute(sql`insert into bans (user_id, reason) values (1, 'spam')`);
    await t.db.execute(sql`insert into bans (ip, reason, valid_until) values ('192.0.2.0/24', 'scraper', now() + interval '1 day')`);
    await t.db.execute(sql`insert into bans (ip, reason, valid_until) values ('192.0.3.0/24', 'old', now() - interval '1 day')`);
    expect((await findActiveBan(t.db, { userId: 1 }))?.reason).toBe('spam');
    expect((await findActiveBan(t.db, { ip: '192.0.2.99' }))?.reason).toBe('scraper');
    expect(await findActiveBan(t.db, { ip: '192.0.3.5' })).toBeUndefined();
    expect(await findActiveBan(t.db, { ip: 'not-an-ip' })).toBeUndefined();
    await t.db.execute(sql`update bans set enabled = false where user_id = 1`);
    expect(await findActiveBan(t.db, { userId: 1 })).toBeUndefined();
  });
});
