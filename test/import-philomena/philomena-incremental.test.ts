/**
 * Running the import again brings only what changed at the source (updates, additions and
 * removals), through the search outbox; a run stopped midway resumes without reading again what
 * it had staged.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sqlClientOf } from '../../src/db/client.js';
import { recordChangeFeedOf } from '../../src/db/record-change-feed.js';
import { openLiveSource } from '../../src/import/philomena/live-source.js';
import type { Reporter } from '../../src/import/philomena/report.js';
import { migratePhilomena, type MigrateOptions, type MigrateResult } from '../../src/import/philomena/run.js';
import { startHarness, type Harness } from '../http/harness.js';
import { createPhilomenaDatabase, type PhilomenaDatabase } from '../support/philomena/database.js';
import { fixtureRows } from '../support/philomena/rows.js';

let h: Harness;
let src: PhilomenaDatabase;

async function run(options: MigrateOptions = {}): Promise<MigrateResult> {
  const source = await openLiveSource(src.url);
  try {
    return await migratePhilomena(h.db, source, options);
  } finally {
    await source.close();
  }
}

/** Per table: [inserted, updated, deleted], for the tables where any is non-zero. */
function changes(result: MigrateResult): Record<string, [number, number, number]> {
  const out: Record<string, [number, number, number]> = {};
  for (const [table, t] of result.tallies) if (t.inserted + t.updated + t.deleted > 0) out[table] = [t.inserted, t.updated, t.deleted];
  return out;
}

beforeAll(async () => {
  h = await startHarness();
  src = await createPhilomenaDatabase('current', fixtureRows());
  await run();
});
afterAll(async () => {
  await h?.close();
  await src?.drop();
});

const NOW = `(now() at time zone 'UTC')`;

test('a second run applies exactly the changes made at the source, removals included', async () => {
  const sql = sqlClientOf(h.db);
  await sql`delete from search_outbox`;
  await src.sql.unsafe(`
    update images set description = 'changed', updated_at = ${NOW} where id = 1;
    delete from comments where id = 8;
    delete from images where id = 12;
    insert into tags (id, name, slug, name_in_namespace, created_at, updated_at) values (14, 'new tag', 'new+tag', 'new tag', ${NOW}, ${NOW});
    insert into image_taggings (image_id, tag_id) values (2, 14);
    update images set updated_at = ${NOW} where id = 2;
    delete from image_faves where image_id = 2 and user_id = 3;
    update users set name = 'Zed', slug = 'zed', updated_at = ${NOW} where id = 5;`);
  const result = await run();
  expect(result.firstImport).toBe(false);
  expect(changes(result)).toEqual({
    users: [0, 1, 0],
    tags: [1, 0, 0],
    images: [0, 2, 1],
    image_taggings: [1, 0, 0],
    image_faves: [0, 0, 1],
    comments: [0, 0, 1],
  });
  // Only the changed images were read.
  expect(result.tallies.get('images')!.read).toBe(2);
  expect(result.tallies.get('comments')!.read).toBe(0);

  expect((await h.api('/images/1')).body.image.description).toBe('changed');
  expect((await h.api('/images/12')).status).toBe(404);
  expect((await h.api('/comments/8')).status).toBe(404);
  expect((await h.api('/profiles/5')).body.user.name).toBe('Zed');
  expect((await h.api('/images/2')).body.image.tags).toContain('new tag');
  // The indices hear of every change through the outbox.
  const outbox = await sql`select distinct index, record_id from search_outbox where index = 'images' order by record_id`;
  expect(outbox.map((r) => r.record_id)).toEqual(expect.arrayContaining([1, 2, 12]));
});

test('a run with nothing changed writes nothing', async () => {
  expect(changes(await run())).toEqual({});
});

test('a stopped run resumes without reading again the tables it had staged intact', async () => {
  await src.sql.unsafe(`update images set description = 'resumed', updated_at = ${NOW} where id = 3`);
  await expect(run({ onStaged: (t) => { if (t === 'images') throw new Error('stopped'); } })).rejects.toThrow('stopped');
  expect((await h.api('/images/3')).body.image.description).not.toBe('resumed');
  // As a crash leaves an unlogged table: the ids staged to find removed tags are gone.
  await sqlClientOf(h.db).unsafe('truncate philomena_staging."tags__keys"');

  const notes: string[] = [];
  const reporter: Reporter = { progress() {}, skipped() {}, note: (m) => notes.push(m) };
  const staged: string[] = [];
  const result = await run({ reporter, onStaged: (t) => staged.push(t) });
  expect(notes.some((n) => n.startsWith('resuming'))).toBe(true);
  expect(staged).not.toContain('users');
  expect(staged).not.toContain('images');
  expect(staged).toContain('tags'); // staged again, not taken as "every tag was removed"
  expect(staged).toContain('comments');
  expect(changes(result)).toEqual({ images: [0, 1, 0] });
  // image 3 was read (and cached) before this run: wait until the app has heard of its writes
  await recordChangeFeedOf(h.db).sync();
  expect((await h.api('/images/3')).body.image.description).toBe('resumed');
});
