/**
 * `npm run admin -- approve IMAGE_IDS` and `user verify NAME`: images waiting for approval become
 * approved as Philomena approves them (first seen now, the uploader's uploads count raised once),
 * an approved one is left as it was, an unknown id refuses the whole command; `user verify` sets
 * the row's flag (`test/ops/empty-board.test.ts` uploads as a verified user). Run in-process
 * through the command runner the CLI uses, against a real database; the oracle is plain SQL.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/admin.js';
import { AdminError } from '../../src/contexts/errors.js';
import type { Database } from '../../src/db/client.js';
import { UsageError } from '../../src/lib/command-line.js';
import { insertImage, insertUser } from '../http/harness.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t?.drop();
});

async function admin(...argv: string[]): Promise<string> {
  const lines: string[] = [];
  await runCommand(argv, { out: (line) => lines.push(line) }, <T>(fn: (db: Database) => Promise<T>) => fn(t.db));
  return lines.join('\n');
}

const LONG_AGO = new Date('2021-05-05T00:00:00Z');

describe('approval from the admin command line', () => {
  it('approves waiting images once, refuses unknown ids, and verifies users', async () => {
    const user = await insertUser(t.db, { name: 'Waiting Uploader' });
    const a = await insertImage(t.db, { values: { userId: user.id, approved: false, firstSeenAt: LONG_AGO } });
    const b = await insertImage(t.db, { values: { userId: user.id, approved: false, firstSeenAt: LONG_AGO } });
    const done = await insertImage(t.db, { values: { userId: user.id, approved: true, firstSeenAt: LONG_AGO } });

    await expect(admin('approve', `${a.id},999999`)).rejects.toThrow(AdminError);
    await expect(admin('approve')).rejects.toThrow(UsageError);
    expect((await t.db.execute<{ approved: boolean }>(sql`select approved from images where id = ${a.id}`))[0]!.approved).toBe(false);

    expect(await admin('approve', `${a.id},${b.id},${done.id}`)).toBe(`approved 2 images (${a.id}, ${b.id}); already approved: ${done.id}`);
    const rows = await t.db.execute<{ id: number; approved: boolean; recent: boolean }>(
      sql`select id, approved, first_seen_at > now() - interval '1 minute' as recent from images where user_id = ${user.id} order by id`,
    );
    expect([...rows]).toEqual([
      { id: a.id, approved: true, recent: true },
      { id: b.id, approved: true, recent: true },
      { id: done.id, approved: true, recent: false },
    ]);
    const count = async () => (await t.db.execute<{ n: number }>(sql`select images_count as n from users where id = ${user.id}`))[0]!.n;
    expect(await count()).toBe(2);
    // again: nothing changes
    expect(await admin('approve', String(a.id))).toBe(`approved 0 images; already approved: ${a.id}`);
    expect(await count()).toBe(2);
    // the outbox carries the approvals to the index
    const outbox = await t.db.execute<{ n: number }>(sql`select count(*)::int as n from search_outbox where index = 'images' and record_id in (${a.id}, ${b.id})`);
    expect(outbox[0]!.n).toBeGreaterThanOrEqual(2);

    expect(await admin('user', 'verify', 'Waiting Uploader')).toBe('user Waiting Uploader is now verified: their uploads are approved at once');
    const [verified] = await t.db.execute<{ verified: boolean; role: string }>(sql`select verified, role from users where id = ${user.id}`);
    expect(verified).toEqual({ verified: true, role: 'user' });
    await expect(admin('user', 'verify', 'Nobody')).rejects.toThrow(AdminError);
  });
});
