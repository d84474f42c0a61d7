/**
 * A first import bulk-loads the empty board with its keys, indexes, foreign keys and triggers set
 * aside. Killed at the worst moment (every row in, nothing rebuilt yet), it must leave the board
 * exactly as it was: empty, with its whole schema; the next run then imports normally.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sqlClientOf } from '../../src/db/client.js';
import { openLiveSource } from '../../src/import/philomena/live-source.js';
import { migratePhilomena } from '../../src/import/philomena/run.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { createPhilomenaDatabase, type PhilomenaDatabase } from '../support/philomena/database.js';
import { fixtureRows } from '../support/philomena/rows.js';

let target: TestDatabase;
let src: PhilomenaDatabase;

beforeAll(async () => {
  target = await createTestDatabase();
  src = await createPhilomenaDatabase('current', fixtureRows());
});
afterAll(async () => {
  await target?.drop();
  await src?.drop();
});

/** Run the import in a process of its own that kills itself after loading; resolves with its output and signal. */
function importThenDie(): Promise<{ stdout: string; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'support/import-then-die.ts'), target.url, src.url], { timeout: 120_000 }, (_err, stdout) => {
      resolve({ stdout, signal: child.signalCode });
    });
  });
}

/** Every constraint, index and enabled trigger of the board, as text, read from the catalogs. */
async function schemaFacts(): Promise<string[]> {
  const sql = sqlClientOf(target.db);
  const rows = await sql<Array<{ fact: string }>>`
    select format('constraint %s %s %s', conrelid::regclass, conname, pg_get_constraintdef(oid)) as fact
      from pg_constraint where connamespace = 'public'::regnamespace
    union all
    select format('index %s', indexdef) from pg_indexes where schemaname = 'public'
    union all
    select format('trigger %s %s %s', tgrelid::regclass, tgname, tgenabled) from pg_trigger
      where not tgisinternal and tgrelid::regclass::text not like 'philomena_staging.%'
    order by 1`;
  return rows.map((r) => r.fact);
}

const count = async (table: string) => (await sqlClientOf(target.db).unsafe<Array<{ n: number }>>(`select count(*)::int as n from "${table}"`))[0]!.n;

test('a first import killed after loading, before rebuilding, leaves the empty board with its whole schema; the next run imports', async () => {
  const before = await schemaFacts();
  expect(before.some((f) => f.startsWith('constraint image_taggings '))).toBe(true);
  expect(before.some((f) => f.startsWith('trigger images images_outbox O'))).toBe(true);

  const died = await importThenDie();
  expect(died.stdout).toBe('loaded\n');
  expect(died.signal).toBe('SIGKILL');

  expect(await schemaFacts()).toEqual(before);
  for (const table of ['users', 'tags', 'images', 'image_taggings', 'comments']) expect(await count(table)).toBe(0);

  const source = await openLiveSource(src.url);
  const result = await migratePhilomena(target.db, source).finally(() => source.close());
  expect(result.firstImport).toBe(true);
  expect(await schemaFacts()).toEqual(before);
  expect(await count('images')).toBe(result.tallies.get('images')!.inserted);
  expect(await count('image_taggings')).toBeGreaterThan(0);
  const sql = sqlClientOf(target.db);
  // The rebuilt keys hold: the same row cannot go in twice.
  const [tagging] = await sql<Array<{ image_id: number; tag_id: number }>>`select image_id, tag_id from image_taggings limit 1`;
  await expect(sql`insert into image_taggings (image_id, tag_id, position) values (${tagging!.image_id}, ${tagging!.tag_id}, 0)`).rejects.toThrow(/duplicate key/);
});
