/**
 * Importing a board written in the API's own shapes (see schema.ts), keeping ids.
 *
 * Every record is validated (shape, then references between records and to rows already in the
 * database) before anything is written; a file with any problem writes nothing and every problem
 * is reported as `<resource> <key>: <problem>`. Writes happen in one transaction. Rows are
 * upserted by id (forums by short name, topics by forum and slug) and only when they differ, so
 * importing the same file twice changes nothing the second time; an id the board holds as a
 * different image, user or tag (an upload made beside the import) is a problem, never an
 * overwrite (conflicts.ts).
 *
 * Counters (scores, counts) are taken from the file as the API showed them. Image files named by
 * `file` are analysed and stored with every representation, like an upload.
 */
import type { Database } from '../../db/client.js';
import { checkReferences } from './check.js';
import { idConflicts } from './conflicts.js';
import type { ImportOptions } from './options.js';
import { parseBoard } from './schema.js';
import { Tally } from './upsert.js';
import { writeBoard } from './write.js';

export type { ImportOptions } from './options.js';

export { parseBoard } from './schema.js';

/** The file was refused; `problems` lists every reason, one per line. */
export class ImportError extends Error {
  override name = 'ImportError';
  constructor(readonly problems: string[]) {
    super(`the board was not imported: ${problems.length} problem${problems.length === 1 ? '' : 's'}\n${problems.join('\n')}`);
  }
}


export interface ImportSummary {
  /** Rows inserted, updated and left as they were, per table. */
  inserted: Record<string, number>;
  updated: Record<string, number>;
  unchanged: Record<string, number>;
  /** Image files processed and written (0 when every stored file was already up to date). */
  filesWritten: number;
}

/**
 * Import a board (the parsed JSON of a board file). Throws ImportError listing every problem, and
 * then writes nothing; otherwise writes everything in one transaction and says what changed.
 */
export async function importBoard(db: Database, data: unknown, options: ImportOptions = {}): Promise<ImportSummary> {
  const { board, problems, keys } = parseBoard(data);
  // A file whose top level is wrong has no records to check further.
  if (problems.some((p) => p.startsWith('board: '))) throw new ImportError(problems);
  const { problems: refProblems, resolved } = await checkReferences(db, board, keys, options);
  const conflicts = await idConflicts(db, board);
  if (problems.length + refProblems.length + conflicts.length > 0) throw new ImportError([...problems, ...refProblems, ...conflicts]);

  // Files before rows: if the transaction fails, the files are unreferenced and the next import
  // rewrites them (their keys are fixed by id and date); rows never point at a missing file.
  let filesWritten = 0;
  for (const f of resolved.files.values()) {
    for (const p of f.pending ?? []) {
      await options.fileStore!.put(p.key, p.buffer);
      filesWritten++;
    }
  }
  const tally = new Tally();
  await db.transaction(async (tx) => {
    // Again where the writes see it: an upload may have taken one of the ids since.
    const taken = await idConflicts(tx, board);
    if (taken.length > 0) throw new ImportError(taken);
    await writeBoard(tx, board, resolved, tally);
  });
  return { inserted: tally.inserted, updated: tally.updated, unchanged: tally.unchanged, filesWritten };
}
