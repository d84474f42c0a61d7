/**
 * A database restored from an older physical backup, played on the same database: a restore keeps
 * the cluster's identity and the database's oid, and puts back the rows, the change log, the
 * outbox and the sequences as they were. Here they are put back with triggers off, after changes
 * made through the outbox and the change log (40 new images, 10 rescored) that an index took in.
 */
import type { Database } from '../../src/db/client.js';
import type { Indexer } from '../../indexer/index.js';

export interface Backup {
  maxImage: number;
  changeLogId: number;
  changeSeq: number;
  outboxSeq: number;
  through: number | null;
}

export async function takeBackup(db: Database): Promise<Backup> {
  const [row] = await db.$client.unsafe<Backup[]>(`select
      (select coalesce(max(id), 0) from images) as "maxImage",
      (select coalesce(max(id), 0) from change_log) as "changeLogId",
      coalesce(pg_sequence_last_value('change_log_seq_seq'), 0) as "changeSeq",
      coalesce(pg_sequence_last_value('search_outbox_id_seq'), 0) as "outboxSeq",
      (select through from search_outbox_applied) as through`);
  return row!;
}

/**
 * Changes after the backup, through the outbox and the change log: 40 new images, 10 rescored;
 * applied by `indexer` when given (a running service follows them itself).
 */
export async function writeAfterBackup(db: Database, indexer?: Indexer): Promise<void> {
  await db.$client.unsafe(`insert into images (image_format, image_mime_type, score) select 'png', 'image/png', 5000 + g from generate_series(1, 40) g`);
  await db.$client.unsafe('update images set score = score + 1000 where id <= 10');
  await indexer?.syncOnce();
}

/** The database as the backup left it: rows, change log, outbox and sequences, triggers off. */
export async function restoreBackup(db: Database, b: Backup): Promise<void> {
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
