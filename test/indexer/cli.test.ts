/** The indexer CLI end to end: usage errors, status, drift found by verify, reindex, sync. */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { images, searchOutbox } from '../../src/db/schema/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { programArgs } from '../support/programs.js';
import { bulkBoard } from './fixtures.js';

const run = promisify(execFile);

let t: TestDatabase;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-indexer-cli-'));
  await bulkBoard(t.db, { images: 200 });
});
afterAll(async () => {
  await t?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [...programArgs('indexer/cli.ts'), ...args], {
      // a clean environment: the test runner's own variables (BASE_URL=/ ...) are not settings
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: t.url, DATA_DIR: dataDir },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe('indexer CLI', () => {
  it('exits 2 on bad usage', async () => {
    const r = await cli('reindex', 'nonsense');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown index: nonsense');
    expect(r.stderr).toContain('Usage: npm run indexer');
  }, 120_000);

  it('status, verify (drift: exit 1), reindex, verify (clean: exit 0), sync', async () => {
    const status = await cli('status', '--json');
    expect(status.code).toBe(0);
    const before = JSON.parse(status.stdout);
    expect(before.indexes[0]).toEqual({ index: 'images', rows: 200, docs: 0 });

    const drift = await cli('verify', 'images', '--sample', '10');
    expect(drift.code).toBe(1);
    expect(drift.stdout).toMatch(/images\s+200\s+0\s+200/);

    const re = await cli('reindex', '--json');
    expect(re.code).toBe(0);
    const { results } = JSON.parse(re.stdout);
    expect(results.find((r: { index: string }) => r.index === 'images')).toMatchObject({ docs: 200, version: 'images_v2' });

    // each process loads the snapshot the previous one wrote
    await t.db.update(images).set({ score: 12345 });
    const sync = await cli('sync', '--once', '--json');
    expect(sync.code).toBe(0);
    expect(JSON.parse(sync.stdout).applied).toBeGreaterThanOrEqual(200);
    expect(await t.db.$count(searchOutbox)).toBe(0);
    const clean = await cli('verify', '--sample', '200');
    expect(clean.stdout).not.toContain('NO');
    expect(clean.code).toBe(0);
  }, 180_000);
});
