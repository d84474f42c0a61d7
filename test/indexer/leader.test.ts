/**
 * The lead of the outbox among processes sharing an engine (indexer/leader.ts), on a real
 * database: one candidate follows at a time, and when the leader's session dies (its process
 * killed: PostgreSQL ends the session and frees the lock) another takes over within about its
 * poll interval, measured here; a leader whose session alone died steps down rather than take the
 * lock again from its reconnected pool. Each candidate has an indexer and an engine of its own, as
 * separate processes would; what they share is PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForCatchUp } from '../../indexer/catch-up.js';
import { Indexer } from '../../indexer/index.js';
import { LEADER_LOCK, OutboxLeadership } from '../../indexer/leader.js';
import { createDatabase } from '../../src/db/client.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { waitUntil } from '../support/wait.js';

const POLL_MS = 200;

/**
 * The backend that holds the lead, read from pg_locks (not through the module under test). Only
 * this database's: pg_locks shows the whole cluster, where other tests' boards hold the same key.
 */
async function lockHolder(t: TestDatabase): Promise<number | undefined> {
  const [row] = await t.db.$client`select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 1
    and database = (select oid from pg_database where datname = current_database()) and classid::bigint = ${Math.floor(LEADER_LOCK / 2 ** 32)} and objid::bigint = ${LEADER_LOCK % 2 ** 32}`;
  return row?.pid as number | undefined;
}

/** A candidate on `t` with an indexer and an engine of its own, as a separate process would have. */
async function candidateOn(t: TestDatabase, engine: EmbeddedEngine, options: { pollMs: number; stallSeconds?: number }): Promise<OutboxLeadership> {
  const indexer = new Indexer({ db: t.db, engine, deleteRows: 'immediate', pollMs: options.pollMs });
  await indexer.ensureIndexes();
  return new OutboxLeadership({ session: createDatabase(t.url, { max: 1 }), indexer, ...options });
}

describe('the lead of the outbox', () => {
  let t: TestDatabase;
  const candidates: { leadership: OutboxLeadership; engine: EmbeddedEngine }[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    for (let i = 0; i < 3; i++) {
      const engine = new EmbeddedEngine({});
      candidates.push({ leadership: await candidateOn(t, engine, { pollMs: POLL_MS }), engine });
    }
  });
  afterAll(async () => {
    for (const c of candidates) await c.leadership.stop().catch(() => {});
    await t.drop();
  });

  const leaders = () => candidates.filter((c) => c.leadership.leading);
  const pending = async () => (await t.db.$client`select count(*)::int as n from search_outbox`)[0]!.n as number;
  const addTag = (name: string) => t.db.$client`insert into tags (name, slug, name_in_namespace) values (${name}, ${name}, ${name}) returning id`.then((r) => r[0]!.id as number);

  it('lets one candidate follow, and another take over within a poll interval when its session dies', async () => {
    for (const c of candidates) c.leadership.start();
    await waitUntil('a leader', () => leaders().length === 1, 10_000, 20);
    // no second leader appears while the first holds
    await new Promise((r) => setTimeout(r, POLL_MS * 3));
    expect(leaders()).toHaveLength(1);
    const first = leaders()[0]!;

    const before = await addTag('before_failover');
    await waitUntil('the write applied', async () => (await pending()) === 0, 10_000, 20);
    expect(before).toBeGreaterThan(0);
    expect(await first.engine.count('tags')).toBe(1);

    // the leader's process is killed: PostgreSQL ends its session
    const pid = await lockHolder(t);
    expect(pid).toBeDefined();
    const killedAt = Date.now();
    await t.db.$client`select pg_terminate_backend(${pid!})`;
    const after = await addTag('after_failover');
    const next = await waitUntil('another leader', () => leaders().find((c) => c !== first), 10_000, 10);
    const tookOverMs = Date.now() - killedAt;
    // its engine holds both (the one before by its repair on taking the lead: it was empty)
    await waitUntil('the write after the failover in the new leader\'s engine', async () => (await next.engine.count('tags')) === 2, 10_000, 10);
    const searchableMs = Date.now() - killedAt;
    await waitUntil('the outbox applied', async () => (await pending()) === 0, 10_000, 10);
    expect(after).toBeGreaterThan(before);
    console.log(`failover: a new leader after ${tookOverMs} ms, the write searchable after ${searchableMs} ms (poll ${POLL_MS} ms)`);
    expect(tookOverMs).toBeLessThan(POLL_MS * 2 + 1000);
    // the old leader noticed that its session (and the lock) is gone, and stopped following
    await waitUntil('the old leader to step down', () => !first.leadership.leading, 5_000, 20);
    expect(leaders()).toHaveLength(1);
  });

  it('hands the lead over at once when the leader stops', async () => {
    const current = leaders()[0]!;
    await current.leadership.stop();
    const stoppedAt = Date.now();
    await waitUntil('another leader', () => leaders().find((c) => c !== current), 10_000, 10);
    expect(Date.now() - stoppedAt).toBeLessThan(POLL_MS * 2 + 1000);
  });
});

describe('a leader that makes no progress', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('gives the lead up, and another candidate applies what waits', async () => {
    const candidate = (engine: EmbeddedEngine) => candidateOn(t, engine, { pollMs: 100, stallSeconds: 0.5 });
    // its engine refuses every write (say, a node it cannot reach that others can)
    const brokenEngine = new EmbeddedEngine({});
    const stuck = await candidate(brokenEngine);
    brokenEngine.write = () => Promise.reject(new Error('unreachable'));
    stuck.start();
    await waitUntil('the stuck candidate to lead', () => stuck.leading, 10_000, 20);
    const healthyEngine = new EmbeddedEngine({});
    const healthy = await candidate(healthyEngine);
    healthy.start();
    try {
      await t.db.$client`insert into tags (name, slug, name_in_namespace) values ('stuck', 'stuck', 'stuck')`;
      await waitUntil('the healthy candidate to lead', () => healthy.leading, 10_000, 20);
      expect(stuck.leading).toBe(false);
      await waitUntil('the row applied', async () => (await t.db.$client`select count(*)::int as n from search_outbox`)[0]!.n === 0, 10_000, 20);
      expect(await healthyEngine.count('tags')).toBe(1);
    } finally {
      await Promise.all([stuck.stop(), healthy.stop()]);
    }
  });
});

describe('a leader whose session died while its process lives on', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('steps down instead of taking the lock again from its reconnected pool, so the candidate waiting gets it', async () => {
    const candidate = (pollMs: number) => candidateOn(t, new EmbeddedEngine({}), { pollMs });
    // The first checks twice as often as the second: were it to take the lock again at once, it
    // would always be first to ask.
    const quick = await candidate(100);
    const slow = await candidate(250);
    try {
      quick.start();
      await waitUntil('the quick candidate to lead', () => quick.leading, 10_000, 10);
      slow.start();
      await new Promise((r) => setTimeout(r, 300));
      expect(slow.leading).toBe(false);
      // Its connection is cut (a network failure, a restarted pooler); the process is fine.
      await t.db.$client`select pg_terminate_backend(${(await lockHolder(t))!})`;
      await waitUntil('the waiting candidate to lead', () => slow.leading, 5_000, 10);
      // the first notices at its next check and steps down, and does not take the lead back
      await waitUntil('the first candidate to step down', () => !quick.leading, 5_000, 10);
      await new Promise((r) => setTimeout(r, 500));
      expect([quick.leading, slow.leading]).toEqual([false, true]);
      // and the one that stepped down stays a candidate: it leads again once the other stops
      await slow.stop();
      await waitUntil('the first candidate to lead again', () => quick.leading, 5_000, 10);
    } finally {
      await Promise.all([quick.stop(), slow.stop()]);
    }
  });
});

describe('catching up at start beside a shared index', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it('waits for the outbox as it stood at the start and for empty indices to be filled, not for later writes', async () => {
    await t.db.$client`insert into tags (name, slug, name_in_namespace) values ('early', 'early', 'early')`;
    const engine = new EmbeddedEngine({});
    const indexer = new Indexer({ db: t.db, engine, deleteRows: 'immediate' });
    await indexer.ensureIndexes();
    let caughtUp = false;
    const waiting = waitForCatchUp(t.db, engine, { pollMs: 20 }).then(() => (caughtUp = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(caughtUp).toBe(false);
    await indexer.syncOnce();
    await new Promise((r) => setTimeout(r, 100));
    expect(await engine.count('tags')).toBe(1);
    // a write after the start does not hold it back
    await t.db.$client`insert into tags (name, slug, name_in_namespace) values ('late', 'late', 'late')`;
    await waiting;
    expect(caughtUp).toBe(true);
  });

  it('waits for an index that is empty while its table has rows (a first fill leaves no outbox rows)', async () => {
    await t.db.$client`delete from search_outbox`;
    const engine = new EmbeddedEngine({});
    const indexer = new Indexer({ db: t.db, engine, deleteRows: 'immediate' });
    await indexer.ensureIndexes();
    let caughtUp = false;
    const waiting = waitForCatchUp(t.db, engine, { pollMs: 20 }).then(() => (caughtUp = true));
    await new Promise((r) => setTimeout(r, 200));
    expect(caughtUp).toBe(false);
    await indexer.repairIndexes();
    await waiting;
    expect(await engine.count('tags')).toBe(2);
  });
});
