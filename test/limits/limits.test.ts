import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findActiveBan, issueAutomaticBan } from '../../src/contexts/users/active-bans.js';
import { createDatabase } from '../../src/db/client.js';
import { ClientGate, parseRate, RefusalMemory, RequestLimiter, searchCost, SharedBuckets, SharedViolations, TokenBuckets } from '../../src/limits/index.js';
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

  // Each limiter, bucket set or gate below stands for an API process of its own: they share
  // nothing but the database.
  it('give limiters that share a database one budget between them, within a chunk per limiter', async () => {
    const policy = { capacity: 60, refillPerSecond: 60 / 3600 };
    const processes = [0, 1, 2].map(() => new SharedBuckets(t.db, 'read', policy));
    expect(processes[0]!.chunk).toBe(6);
    let passed = 0;
    for (let i = 0; i < 180; i++) if ((await processes[i % 3]!.take('ip:198.51.100.60')).ok) passed++;
    // what the other two hold in leases unspent at most is lost; nothing is given twice
    expect(passed).toBeGreaterThanOrEqual(60 - 2 * 6);
    expect(passed).toBeLessThanOrEqual(60);
    // at once, too
    const burst = await Promise.all(Array.from({ length: 180 }, (_, i) => processes[i % 3]!.take('ip:198.51.100.61')));
    const passedAtOnce = burst.filter((r) => r.ok).length;
    expect(passedAtOnce).toBeGreaterThanOrEqual(48);
    expect(passedAtOnce).toBeLessThanOrEqual(60);
    const refused = burst.find((r) => !r.ok);
    expect(refused && !refused.ok && refused.retryAfterSeconds).toBeGreaterThan(0);
  });

  it('put the tokens of a lapsed lease back, so slow requests spread over limiters still get the whole budget', async () => {
    const policy = { capacity: 60, refillPerSecond: 60 / 3600 };
    const processes = [0, 1, 2].map(() => new SharedBuckets(t.db, 'read', policy));
    // each request comes after every limiter's lease of the one before has lapsed (a slow caller,
    // or a busy machine): a lease's five unspent tokens must not be lost each time
    let now = Date.now();
    let passed = 0;
    for (let i = 0; i < 90; i++) {
      now += 2 * processes[0]!.leaseMs;
      if ((await processes[i % 3]!.take('ip:198.51.100.62', 1, now)).ok) passed++;
    }
    // the last lease of each of the other two limiters may still hold what it took
    expect(passed).toBeGreaterThanOrEqual(60 - 2 * 6);
    expect(passed).toBeLessThanOrEqual(60);
  });

  it('fall back to a bucket of their own when the store cannot be reached, without trying it on every request', async () => {
    const pool = createDatabase(t.url, { max: 1 });
    await pool.$client.end({ timeout: 1 });
    const errors: unknown[] = [];
    const buckets = new SharedBuckets(pool, 'read', { capacity: 2, refillPerSecond: 1 / 3600 }, { onError: (err) => errors.push(err) });
    const first = buckets.take('ip:198.51.100.65');
    expect(first).toBeInstanceOf(Promise);
    expect((await first).ok).toBe(true);
    expect(errors).toHaveLength(1);
    // answered at once by the local bucket now, which holds the budget alone
    const second = buckets.take('ip:198.51.100.65');
    expect(second).toEqual({ ok: true, remaining: 0 });
    expect(buckets.take('ip:198.51.100.65')).toMatchObject({ ok: false });
    expect(errors).toHaveLength(1);
  });

  it('count violations in one window for every limiter, and say once per window that a ban is due', async () => {
    const a = new SharedViolations(t.db, 60, 4);
    const b = new SharedViolations(t.db, 60, 4);
    const due = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).record('ip:198.51.100.70')));
    expect(due.filter(Boolean)).toHaveLength(2);
    // a window past starts again
    const short = new SharedViolations(t.db, 0.2, 2);
    expect(await short.record('ip:198.51.100.71')).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(await short.record('ip:198.51.100.71')).toBe(false);
    expect(await short.record('ip:198.51.100.71')).toBe(true);
  });

  it('issue one automatic ban when limiters race to ban the same caller', async () => {
    const bans = await Promise.all([0, 1, 2, 3].map(() => issueAutomaticBan(t.db, { ip: '198.51.100.80' }, 'too many', 600)));
    expect(new Set(bans.map((b) => b.id)).size).toBe(1);
    const rows = await t.db.execute<{ n: number }>(sql`select count(*)::int as n from bans where ip = '198.51.100.80/32'`);
    expect(rows[0]!.n).toBe(1);
    // a user's ban is the user's, wherever they come from
    const [u1, u2] = await Promise.all([issueAutomaticBan(t.db, { userId: 2, ip: '198.51.100.81' }, 'x', 600), issueAutomaticBan(t.db, { userId: 2, ip: '198.51.100.82' }, 'x', 600)]);
    expect(u1.id).toBe(u2.id);
  });

  it('ban a caller once whose violations are spread over limiters', async () => {
    const strict = { ...policy, budgets: { ...policy.budgets, read: { capacity: 1, refillPerSecond: 1 / 3600 } }, banAfterViolations: 4 };
    const limiters = [0, 1, 2].map(() => new RequestLimiter(t.db, strict));
    const who = { ip: '198.51.100.90' };
    const kinds: string[] = [];
    for (let i = 0; i < 6; i++) kinds.push((await limiters[i % 3]!.check(who, 'read')).kind);
    // one passes, three are refused, the fifth request's violation is the fourth: banned (the
    // sixth limiter's ban cache, with no record-change feed here, keeps its answer up to its ttl)
    expect(kinds).toEqual(['ok', 'limited', 'limited', 'limited', 'banned', 'limited']);
    expect((await new RequestLimiter(t.db, strict).check(who, 'read')).kind).toBe('banned');
    const rows = await t.db.execute<{ n: number }>(sql`select count(*)::int as n from bans where ip = '198.51.100.90/32'`);
    expect(rows[0]!.n).toBe(1);
  });

  it('holds a gate\'s concurrency and rate across gates that share a database', async () => {
    const options = { name: 'test', concurrency: 2, rate: { capacity: 3, refillPerSecond: 3 / 3600 } };
    const [a, b] = [new ClientGate(t.db, options), new ClientGate(t.db, options)];
    const first = await a.enter('ip:198.51.100.100');
    const second = await b.enter('ip:198.51.100.100');
    expect(first.ok && second.ok).toBe(true);
    expect(await a.enter('ip:198.51.100.100')).toEqual({ ok: false, retryAfterSeconds: 1, bound: 'concurrency' });
    expect((await b.enter('ip:198.51.100.101')).ok).toBe(true); // another client
    if (first.ok) await first.release();
    const third = await b.enter('ip:198.51.100.100');
    expect(third.ok).toBe(true);
    if (third.ok) await third.release();
    // three entries spent the rate: the fourth is refused on it, and takes no slot
    const fourth = await a.enter('ip:198.51.100.100');
    expect(fourth.ok).toBe(false);
    if (!fourth.ok) expect(fourth.bound).toBe('rate');
  });
});
