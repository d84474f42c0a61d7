/**
 * Index files newer than the database, or of another database, are not trusted: the files record
 * the database they were written beside and how far its change log and outbox had gone, and a
 * new engine on the same directory, repaired by the indexer as `src/main.ts` does at start (while
 * `/readyz` says `starting`), rebuilds every index when the database is another one or has not
 * reached what the files claim (restored from an older backup). The oracle is plain SQL over the
 * images table and the indexer's drift check.
 *
 * A restore from a physical backup keeps the cluster's identity and the database's oid; it is
 * played here on the same database by putting back, with triggers off, the rows, the change log,
 * the outbox and the sequences as they were at the backup.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Indexer } from '../../indexer/index.js';
import type { Database } from '../../src/db/client.js';
import { EmbeddedEngine } from '../../src/search/embedded/index.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { bulkBoard } from './fixtures.js';

let t: TestDatabase;
let other: TestDatabase | undefined;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDatabase();
  await bulkBoard(t.db, { images: 200, users: 5, tags: 20, prefix: 'trust' });
});
afterEach(() => {
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});
afterAll(async () => {
  await t?.drop();
  await other?.drop();
});

/** Open an engine on the directory and repair it as the service does at start. */
async function openRepaired(db: Database): Promise<{ engine: EmbeddedEngine; indexer: Indexer; lines: string[] }> {
  const lines: string[] = [];
  const engine = new EmbeddedEngine({ dataDir });
  const indexer = new Indexer({ db, engine, log: (m) => lines.push(m) });
  await indexer.repairIndexes();
  await indexer.syncOnce();
  return { engine, indexer, lines };
}

/** The engine holds exactly the image ids SQL holds, and no document drifts. */
async function expectCorrect(db: Database, engine: EmbeddedEngine, indexer: Indexer): Promise<void> {
  const rows = (await db.$client.unsafe<{ id: number }[]>('select id from images order by id')).map((r) => r.id);
  const hits = await engine.search('images', { query: { match_all: {} }, sort: [{ id: { order: 'asc' } }], size: rows.length + 100 });
  expect(hits.total).toBe(rows.length);
  expect(hits.ids).toEqual(rows);
  const report = await indexer.verify(undefined, { sample: 1000 });
  expect(report.indexes.filter((r) => !r.ok)).toEqual([]);
}

interface Backup {
  maxImage: number;
  changeLogId: number;
  changeSeq: number;
  outboxSeq: number;
  through: number | null;
}

async function takeBackup(db: Database): Promise<Backup> {
  const [row] = await db.$client.unsafe<Backup[]>(`select
      (select coalesce(max(id), 0) from images) as "maxImage",
      (select coalesce(max(id), 0) from change_log) as "changeLogId",
      coalesce(pg_sequence_last_value('change_log_seq_seq'), 0) as "changeSeq",
      coalesce(pg_sequence_last_value('search_outbox_id_seq'), 0) as "outboxSeq",
      (select through from search_outbox_applied) as through`);
  return row!;
}

/** Changes after the backup, through the outbox and the change log: 40 new images, 10 rescored. */
async function writeAfterBackup(db: Database, indexer: Indexer): Promise<void> {
  await db.$client.unsafe(`insert into images (image_format, image_mime_type, score) select 'png', 'image/png', 5000 + g from generate_series(1, 40) g`);
  await db.$client.unsafe('update images set score = score + 1000 where id <= 10');
  await indexer.syncOnce();
}

/** The database as the backup left it: rows, change log, outbox and sequences, triggers off. */
async function restoreBackup(db: Database, b: Backup): Promise<void> {
  await db.$client.begin(async (tx) => {
    await tx.unsafe('set local session_replication_role = replica');
    await tx.unsafe('delete from images where id > $1', [b.maxImage]);
    await tx.unsafe('update images set score = score - 1000 where id <= 10');
    await tx.unsafe('delete from change_log where id > $1', [b.changeLogId]);
    await tx.unsafe('delete from search_outbox where id > $1', [b.outboxSeq]);
    await tx.unsafe('delete from search_outbox_applied');
    if (b.through !== null) await tx.unsafe('insert into search_outbox_applied (through) values ($1)', [b.through]);
    for (const [seq, value] of [
      ['change_log_seq_seq', b.changeSeq],
      ['search_outbox_id_seq', b.outboxSeq],
      ['images_id_seq', b.maxImage],
    ] as const) {
      await tx.unsafe(`select setval('${seq}', $1, $2)`, [Math.max(1, value), value > 0]);
    }
  });
}

describe('index files newer than the database, or of another one', () => {
  it('a database restored from an older backup: every index is rebuilt, then trusted again', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-trust-'));
    const first = await openRepaired(t.db);
    const backup = await takeBackup(t.db);
    await writeAfterBackup(t.db, first.indexer);
    await first.engine.close();

    await restoreBackup(t.db, backup);
    const { engine, indexer, lines } = await openRepaired(t.db);
    expect(lines.some((l) => /^rebuilding every index: the index files reflect change-log position \d+ and the database has reached only \d+/.test(l))).toBe(
      true,
    );
    await expectCorrect(t.db, engine, indexer);
    // the rebuilt files claim no more than the database holds: the next start trusts them
    await writeAfterBackup(t.db, indexer);
    await engine.close();
    const again = await openRepaired(t.db);
    expect(again.lines.filter((l) => l.startsWith('rebuilding'))).toEqual([]);
    await expectCorrect(t.db, again.engine, again.indexer);
    await again.engine.close();
  });

  it('files written before the database mark: an outbox position beyond the database still tells', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-trust-'));
    const first = await openRepaired(t.db);
    const backup = await takeBackup(t.db);
    await writeAfterBackup(t.db, first.indexer);
    await first.engine.close();
    const listing = join(dataDir, 'index', 'aliases.json');
    const { database: _mark, ...unmarked } = JSON.parse(readFileSync(listing, 'utf8')) as Record<string, unknown>;
    writeFileSync(listing, JSON.stringify(unmarked));

    await restoreBackup(t.db, backup);
    const { engine, indexer, lines } = await openRepaired(t.db);
    expect(lines.some((l) => /^rebuilding every index: \w+ covers outbox position \d+ and the database has handed out only \d+/.test(l))).toBe(true);
    await expectCorrect(t.db, engine, indexer);
    await engine.close();
  });

  it('files of another database: every index is rebuilt from this one', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-trust-'));
    const first = await openRepaired(t.db);
    await first.engine.close();
    other = await createTestDatabase();
    // fewer images with the same ids: an index taken as it is would answer the other board's
    await bulkBoard(other.db, { images: 60, users: 3, tags: 10, prefix: 'other' });
    const { engine, indexer, lines } = await openRepaired(other.db);
    expect(lines.some((l) => /^rebuilding every index: the index files were written beside another database/.test(l))).toBe(true);
    await expectCorrect(other.db, engine, indexer);
    await engine.close();
  });
});
