/**
 * The command line: `npm run import -- philomena URL` imports, says where the indices of a first
 * import get built, reports each bad row with its table and id and a summary, and never stops for one.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sqlClientOf } from '../../src/db/client.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { programArgs } from '../support/programs.js';
import { createPhilomenaDatabase, type PhilomenaDatabase } from '../support/philomena/database.js';
import { fixtureRows } from '../support/philomena/rows.js';

const exec = promisify(execFile);
let target: TestDatabase;
let src: PhilomenaDatabase;
const dataDir = mkdtempSync(join(tmpdir(), 'philomena-cli-'));
const env = () => ({ PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: target.url, DATA_DIR: dataDir, DEMO_DATA: 'false' });

beforeAll(async () => {
  const rows: Record<string, any[]> = fixtureRows();
  // Bad rows: an unknown format, a tagging of a tag that does not exist, a comment by a missing user.
  rows.images!.push({ ...rows.images![0], id: 13, image_format: 'bmp', image_mime_type: 'image/bmp' });
  rows.image_taggings!.push({ image_id: 1, tag_id: 99 });
  rows.comments!.push({ ...rows.comments![0], id: 9, user_id: 77 });
  src = await createPhilomenaDatabase('current', rows);
  target = await createTestDatabase();
});
afterAll(async () => {
  await src?.drop();
  await target?.drop();
  rmSync(dataDir, { recursive: true, force: true });
});

test('imports, reports bad rows by table and id, and summarises', async () => {
  const { stdout, stderr } = await exec(process.execPath, [...programArgs('src/cli/import.ts'), 'philomena', src.url], {
    env: env(),
    timeout: 120_000,
  });
  expect(stderr).toContain('skipped images id 13: image_format "bmp" is not one of');
  expect(stderr).toContain('skipped image_taggings image_id 1 tag_id 99: tag_id names no tags row');
  expect(stderr).toContain('the search indices are built when the server starts');
  expect(stdout).toContain('current Philomena schema');
  expect(stdout).toMatch(/images: 13 read, 12 inserted, 0 updated, 0 unchanged, 0 removed, 1 skipped/);
  expect(stdout).toContain('kept 1 without user_id (no such users row)');
  // The first import checks taggings' references while inserting: the row left out is counted once.
  const taggings = /image_taggings: (\d+) read, (\d+) inserted, 0 updated, 0 unchanged, 0 removed, 1 skipped/.exec(stdout);
  expect(taggings, stdout).not.toBeNull();
  expect(Number(taggings![1])).toBe(Number(taggings![2]) + 1);
  const sql = sqlClientOf(target.db);
  const [row] = await sql`select count(*)::int as n from comments where id = 9 and user_id is null`;
  expect(row!.n).toBe(1);
});

test('a board with other content is refused without --force', async () => {
  const sql = sqlClientOf(target.db);
  await sql`delete from philomena_import`;
  const failed = await exec(process.execPath, [...programArgs('src/cli/import.ts'), 'philomena', src.url], {
    env: env(),
  }).catch((err) => err);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toContain('--force');
});
