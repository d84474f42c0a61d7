/**
 * `npm run admin -- jobs …`: parked jobs listed with their payload and last error, queued again
 * (one or all) or removed; a job that is not parked is refused. Run in-process through the
 * command runner the CLI uses, against a real database.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../../src/cli/admin.js';
import { UsageError } from '../../src/lib/command-line.js';
import { AdminError } from '../../src/contexts/errors.js';
import type { Database } from '../../src/db/client.js';
import { enqueueJob, JobWorker } from '../../src/jobs/index.js';
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

const stateOf = async (id: number) => (await t.db.execute<{ state: string }>(sql`select state from jobs where id = ${id}`))[0]?.state;

describe('admin jobs', () => {
  it('lists, retries and removes parked jobs', async () => {
    expect(await admin('jobs', 'list')).toBe('no parked jobs');
    const ids = [
      await enqueueJob(t.db, 'process-image', { imageId: 41 }, { maxAttempts: 1 }),
      await enqueueJob(t.db, 'process-image', { imageId: 42 }, { maxAttempts: 1 }),
      await enqueueJob(t.db, 'process-image', { imageId: 43 }, { maxAttempts: 1 }),
    ];
    const worker = new JobWorker({ db: t.db, handlers: { 'process-image': async () => Promise.reject(new Error('contents\ncorrupt')) } });
    await worker.drain();

    const listed = (await admin('jobs', 'list')).split('\n');
    expect(listed).toHaveLength(3);
    for (const id of ids) {
      expect(listed.find((l) => l.startsWith(`${id}\t`))).toMatch(new RegExp(`^${id}\\tprocess-image\\t\\{"imageId":4[123]\\}\\t1 attempts\\tparked \\S+\\tError: contents corrupt$`));
    }

    expect(await admin('jobs', 'retry', String(ids[0]))).toBe(`queued job ${ids[0]} again`);
    expect(await stateOf(ids[0]!)).toBe('queued');
    await expect(admin('jobs', 'retry', String(ids[0]))).rejects.toThrow(AdminError);

    expect(await admin('jobs', 'remove', String(ids[1]))).toBe(`removed job ${ids[1]}`);
    expect(await stateOf(ids[1]!)).toBeUndefined();
    await expect(admin('jobs', 'remove', String(ids[1]))).rejects.toThrow(`no parked job ${ids[1]}`);
    await expect(admin('jobs', 'remove', String(ids[0]))).rejects.toThrow(AdminError);

    expect(await admin('jobs', 'retry', '--all')).toBe('queued 1 parked job again');
    expect(await stateOf(ids[2]!)).toBe('queued');
    expect(await admin('jobs', 'list')).toBe('no parked jobs');
  });

  it('refuses malformed commands', async () => {
    await expect(admin('jobs', 'retry')).rejects.toThrow(UsageError);
    await expect(admin('jobs', 'remove', 'x')).rejects.toThrow(UsageError);
    await expect(admin('jobs', 'list', '--all')).rejects.toThrow(UsageError);
    await expect(admin('jobs', 'frobnicate')).rejects.toThrow(UsageError);
  });
});
