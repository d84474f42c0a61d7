/**
 * `npm run admin`. The program itself (its exit statuses, what goes to stdout and stderr, the
 * database opened from DATABASE_URL) is checked on real processes; the commands' behaviour through
 * the program's `runCommand` in this process, exit statuses read as the program sets them (0;
 * 1 for a refused command; 2 for a usage error), a few dozen commands without a process each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand, type CommandIo } from '../../src/cli/admin.js';
import { apiKeys, bans, filters, imageFeatures, images, tags, users } from '../../src/db/schema/index.js';
import { getOrCreateTags } from '../../src/contexts/tags/get-or-create.js';
import { findUserByApiKey, generateApiKey, hashApiKey } from '../../src/contexts/users/api-keys.js';
import { UsageError } from '../../src/lib/command-line.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { runTool, type ToolRun } from '../support/run-tool.js';


let tdb: TestDatabase;
let dataDir: string;

/** The program, as a process. */
function adminProcess(...args: string[]): Promise<ToolRun> {
  return runTool('src/cli/admin.ts', args, { DATABASE_URL: tdb.url, DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
}

/** One command in this process; stderr holds the error line the program prints before its usage text. */
async function admin(...args: string[]): Promise<ToolRun> {
  let stdout = '';
  const io: CommandIo = { out: (line) => (stdout += `${line}\n`) };
  try {
    await runCommand(args, io, (fn) => fn(tdb.db));
    return { code: 0, stdout, stderr: '' };
  } catch (err) {
    return { code: err instanceof UsageError ? 2 : 1, stdout, stderr: `error: ${(err as Error).message}\n` };
  }
}

beforeAll(async () => {
  tdb = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-admin-'));
  await getOrCreateTags(tdb.db, ['safe', 'questionable', 'explicit', 'grotesque', 'semi-grimdark']);
});

afterAll(async () => {
  await tdb.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

// The program's runs are real processes (tsx start, migrations check): slow on a busy machine.
const SLOW = { timeout: 240_000 };

describe('admin CLI program', SLOW, () => {
  it('prints usage with --help and exits 0', async () => {
    const r = await adminProcess('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: npm run admin');
    expect(r.stdout).toContain('filter system create NAME');
  });

  it('exits 2 with usage on stderr for usage errors', async () => {
    const runs = await Promise.all([adminProcess(), adminProcess('frobnicate'), adminProcess('ban', 'user', 'someone')]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^error: .+\n/);
      expect(r.stderr).toContain('Usage: npm run admin');
      expect(r.stdout).toBe('');
    }
    expect(runs[1]!.stderr).toContain('unknown command: frobnicate');
    expect(runs[2]!.stderr).toContain('needs --reason');
  });

  it('runs a command on the database of DATABASE_URL: 0 and its line on stdout; 1 and the error on stderr when refused', async () => {
    const created = await adminProcess('user', 'create', 'Process', '--role', 'moderator');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^created user Process \(id \d+, role moderator\)\n$/);
    expect(await tdb.db.select({ role: users.role }).from(users).where(eq(users.name, 'Process'))).toEqual([{ role: 'moderator' }]);
    const taken = await adminProcess('user', 'create', 'process');
    expect(taken).toMatchObject({ code: 1, stdout: '', stderr: 'error: the name "process" is taken (by "Process")\n' });
  });
});

describe('admin CLI usage errors', () => {
  it('refuses malformed command lines', async () => {
    const runs = await Promise.all([
      admin('user', 'create'),
      admin('user', 'role', 'x', 'admin', '--email', 'x@example.com'),
      admin('feature', 'abc'),
      admin('user', 'create', 'x', '--no-such-option'),
    ]);
    for (const r of runs) {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^error: .+\n$/);
      expect(r.stdout).toBe('');
    }
  });
});

describe('admin CLI commands', () => {
  it('creates users and changes roles', async () => {
    const created = await admin('user', 'create', 'Alice', '--role', 'moderator', '--email', 'alice@example.com');
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^created user Alice \(id \d+, role moderator\)\n$/);
    const [alice] = await tdb.db.select().from(users).where(eq(users.name, 'Alice'));
    expect(alice).toMatchObject({ slug: 'Alice', role: 'moderator', email: 'alice@example.com' });

    const [dup, badRole, role, unknown] = await Promise.all([
      admin('user', 'create', 'alice'),
      admin('user', 'create', 'Bob', '--role', 'wizard'),
      admin('user', 'role', 'Alice', 'admin'),
      admin('user', 'role', 'Nobody', 'admin'),
    ]);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toBe('error: the name "alice" is taken (by "Alice")\n');
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toMatch(/^error: unknown role "wizard"/);
    expect(role).toMatchObject({ code: 0, stdout: 'user Alice is now admin\n' });
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: unknown user "Nobody"\n' });
  });

  it('issues keys that work once hashed, and revokes them', async () => {
    await admin('user', 'create', 'Keyholder');
    const issued = await admin('key', 'issue', 'Keyholder');
    expect(issued.code).toBe(0);
    const key = issued.stdout.trim();
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [row] = await tdb.db.select().from(apiKeys).where(eq(apiKeys.keyHash, hashApiKey(key)));
    expect(row?.prefix).toBe(key.slice(0, 6));
    expect((await findUserByApiKey(tdb.db, key))?.name).toBe('Keyholder');

    const second = (await admin('key', 'issue', 'Keyholder')).stdout.trim();
    const tooShort = await admin('key', 'revoke', 'ab');
    expect(tooShort.code).toBe(1);
    const revoked = await admin('key', 'revoke', key.slice(0, 8));
    expect(revoked).toMatchObject({ code: 0 });
    expect(revoked.stdout).toContain(`revoked key ${key.slice(0, 6)}`);
    expect(await findUserByApiKey(tdb.db, key)).toBeUndefined();
    expect((await findUserByApiKey(tdb.db, second))?.name).toBe('Keyholder');
    const again = await admin('key', 'revoke', key.slice(0, 8));
    expect(again.code).toBe(1);

    const all = await admin('key', 'revoke', '--all', 'Keyholder');
    expect(all).toMatchObject({ code: 0, stdout: 'revoked 1 key of Keyholder\n' });
    expect(await findUserByApiKey(tdb.db, second)).toBeUndefined();
  });

  it('never issues a key beginning with "-", and revokes an older one given after "--"', async () => {
    // One random key in 64 used to begin with "-", which the command line took for an option.
    for (let i = 0; i < 2000; i++) expect(generateApiKey().key.startsWith('-')).toBe(false);
    const [holder] = await tdb.db.select().from(users).where(eq(users.name, 'Keyholder'));
    const old = '-Ab3' + 'x'.repeat(39);
    await tdb.db.insert(apiKeys).values({ userId: holder!.id, keyHash: hashApiKey(old), prefix: old.slice(0, 6) });
    expect((await admin('key', 'revoke', old.slice(0, 8))).code).toBe(2);
    const revoked = await admin('key', 'revoke', '--', old.slice(0, 8));
    expect(revoked, revoked.stderr).toMatchObject({ code: 0 });
    expect(await findUserByApiKey(tdb.db, old)).toBeUndefined();
  });

  it('creates, edits and lists system filters, refusing bad complex strings and unknown tags', async () => {
    const created = await admin(
      'filter', 'system', 'create', 'Default',
      '--hide', 'explicit, grotesque', '--spoiler', 'questionable', '--description', 'The default filter',
    );
    expect(created.code, created.stderr).toBe(0);
    const id = Number(/id (\d+)/.exec(created.stdout)?.[1]);
    const [row] = await tdb.db.select().from(filters).where(eq(filters.id, id));
    const tagIds = Object.fromEntries((await tdb.db.select().from(tags)).map((t) => [t.name, t.id]));
    expect(row).toMatchObject({
      system: true,
      userId: null,
      hiddenTagIds: [tagIds.explicit, tagIds.grotesque],
      spoileredTagIds: [tagIds.questionable],
      description: 'The default filter',
    });

    const [bad, unknownTag, dupName, edited, notFound] = await Promise.all([
      admin('filter', 'system', 'create', 'Broken', '--hidden-complex', '(safe'),
      admin('filter', 'system', 'create', 'Odd', '--hide', 'no such tag'),
      admin('filter', 'system', 'create', 'default'),
      admin('filter', 'system', 'edit', String(id), '--spoilered-complex', 'semi-grimdark || score.lt:-5'),
      admin('filter', 'system', 'edit', '9999', '--name', 'X'),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toBe('error: --hidden-complex is invalid: Imbalanced parentheses.\n');
    expect(unknownTag).toMatchObject({ code: 1, stderr: 'error: unknown tag: no such tag\n' });
    expect(dupName.code).toBe(1);
    expect(edited.code, edited.stderr).toBe(0);
    expect(notFound).toMatchObject({ code: 1, stderr: 'error: no filter with id 9999\n' });
    const [after] = await tdb.db.select().from(filters).where(eq(filters.id, id));
    expect(after?.spoileredComplexStr).toBe('semi-grimdark || score.lt:-5');
    expect(await tdb.db.select().from(filters)).toHaveLength(1);

    const list = await admin('filter', 'list', '--system');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${id}\tDefault\t(system, 0 users)`);
    expect(list.stdout).toContain('hidden: explicit, grotesque');
    expect(list.stdout).toContain('spoilered complex: semi-grimdark || score.lt:-5');
  });

  it('features an image', async () => {
    const [img] = await tdb.db.insert(images).values({ imageFormat: 'png', imageMimeType: 'image/png' }).returning();
    const [hidden] = await tdb.db
      .insert(images)
      .values({ imageFormat: 'png', imageMimeType: 'image/png', hiddenFromUsers: true, deletionReason: 'rule 1' })
      .returning();
    const [ok, missing, refused] = await Promise.all([
      admin('feature', String(img!.id)),
      admin('feature', '424242'),
      admin('feature', String(hidden!.id)),
    ]);
    expect(ok).toMatchObject({ code: 0, stdout: `image ${img!.id} is now featured\n` });
    expect(missing).toMatchObject({ code: 1, stderr: 'error: no image with id 424242\n' });
    expect(refused.code).toBe(1);
    const features = await tdb.db.select().from(imageFeatures);
    expect(features.map((f) => f.imageId)).toEqual([img!.id]);
  });

  it('bans users and addresses, lists and lifts bans', async () => {
    await admin('user', 'create', 'Spammer');
    const [user, ip, v6, until, badIp, badDate, both, unknown] = await Promise.all([
      admin('ban', 'user', 'Spammer', '--reason', 'spam', '--for', '7d'),
      admin('ban', 'ip', '10.1.2.3/8', '--reason', 'abuse'),
      admin('ban', 'ip', '2001:db8::1', '--reason', 'abuse', '--until', '2999-12-31'),
      admin('ban', 'user', 'Spammer', '--reason', 'again', '--until', '2999-01-01T12:00:00Z'),
      admin('ban', 'ip', '10.0.0.0/33', '--reason', 'x'),
      admin('ban', 'user', 'Spammer', '--reason', 'x', '--until', '2001-01-01'),
      admin('ban', 'user', 'Spammer', '--reason', 'x', '--until', '2999-01-01', '--for', '1d'),
      admin('ban', 'user', 'Ghost', '--reason', 'x'),
    ]);
    for (const r of [user, ip, v6, until]) expect(r.code, r.stderr).toBe(0);
    expect(badIp).toMatchObject({ code: 1, stderr: 'error: invalid IP address or CIDR "10.0.0.0/33"\n' });
    expect(badDate).toMatchObject({ code: 1, stderr: 'error: the date "2001-01-01" is in the past\n' });
    expect(both).toMatchObject({ code: 1, stderr: 'error: give --until or --for, not both\n' });
    expect(unknown).toMatchObject({ code: 1, stderr: 'error: unknown user "Ghost"\n' });

    const rows = await tdb.db.select().from(bans).orderBy(bans.id);
    expect(rows.map((b) => b.ip).filter(Boolean).sort()).toEqual(['10.0.0.0/8', '2001:db8::1/128']);
    const week = rows.find((b) => b.reason === 'spam')!;
    expect(Math.abs(week.validUntil!.getTime() - Date.now() - 7 * 86_400_000)).toBeLessThan(120_000);
    expect(rows.find((b) => b.ip === '2001:db8::1/128')?.validUntil?.toISOString()).toBe('3000-01-01T00:00:00.000Z');

    const list = await admin('ban', 'list');
    expect(list.code).toBe(0);
    expect(list.stdout.trim().split('\n')).toHaveLength(4);
    expect(list.stdout).toContain('user Spammer');
    expect(list.stdout).toContain('ip 10.0.0.0/8\tpermanent\tabuse');

    const lifted = await admin('unban', String(week.id));
    expect(lifted).toMatchObject({ code: 0, stdout: `lifted ban ${week.id}\n` });
    const [twice, none] = await Promise.all([admin('unban', String(week.id)), admin('unban', '99999')]);
    expect(twice).toMatchObject({ code: 1, stderr: `error: ban ${week.id} is already lifted\n` });
    expect(none).toMatchObject({ code: 1, stderr: 'error: no ban with id 99999\n' });
    expect((await admin('ban', 'list')).stdout.trim().split('\n')).toHaveLength(3);
    expect((await admin('ban', 'list', '--all')).stdout).toContain('[lifted]');
  });
});
