/**
 * Whether an engine's own files can be trusted beside this database. The files record the
 * database they were written beside (`DatabaseMark`) and, per index, the outbox position they
 * cover; a database that is another one (another cluster's system identifier, another database's
 * oid), or that has not reached what the files claim (restored from an older backup: its change
 * log and outbox sequences are behind), makes every index suspect: it may hold documents, tags
 * and counts this database never had, or lack its changes since the backup.
 */
import type { Database } from '../src/db/client.js';
import type { DatabaseMark, PersistedState } from '../src/search/engine.js';

/** The database as it stands: its mark, and the last outbox id it has handed out. */
export interface DatabaseState {
  mark: DatabaseMark;
  outboxSeq: number;
}

/** Sequences only move forward, commit or not: their last values bound what the database ever held. */
const QUERY = `
  select (select system_identifier::text from pg_control_system())
           || '/' || (select oid::text from pg_database where datname = current_database()) as database,
         coalesce(pg_sequence_last_value('change_log_seq_seq'::regclass), 0) as "changeSeq",
         coalesce(pg_sequence_last_value('search_outbox_id_seq'::regclass), 0) as "outboxSeq"`;

export async function readDatabaseState(db: Database): Promise<DatabaseState> {
  const [row] = await db.$client.unsafe<{ database: string; changeSeq: number; outboxSeq: number }[]>(QUERY);
  if (!row) throw new Error('could not read the database identity');
  return { mark: { database: row.database, changeSeq: Number(row.changeSeq) }, outboxSeq: Number(row.outboxSeq) };
}

/** Why the files cannot be trusted beside `state`, or undefined when they can. */
export function untrustedFiles(persisted: PersistedState, state: DatabaseState): string | undefined {
  const { mark } = persisted;
  if (mark && mark.database !== state.mark.database) {
    return `the indices were written beside another database (${mark.database}; this one is ${state.mark.database})`;
  }
  if (mark && mark.changeSeq > state.mark.changeSeq) {
    return `the indices reflect change-log position ${mark.changeSeq} and the database has reached only ${state.mark.changeSeq} (restored from an older backup?)`;
  }
  for (const [name, position] of Object.entries(persisted.positions)) {
    if (position > state.outboxSeq) {
      return `${name} covers outbox position ${position} and the database has handed out only ${state.outboxSeq} (restored from an older backup?)`;
    }
  }
  return undefined;
}
