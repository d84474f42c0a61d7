/**
 * What every command that works on the board's database does around its work: open the database
 * the server uses, turn a failure into one `error:` line on stderr and exit status 1, and close
 * the database whatever happened.
 */
import { pathToFileURL } from 'node:url';
import type { Config } from '../config.js';
import { openDatabase, type Database } from '../db/client.js';

/**
 * Runs `work` on the board's database and returns its exit status. `explain` reports the failures
 * a command knows better than by their message; it returns false to leave the plain `error:` line.
 */
export async function onBoardDatabase(
  config: Config,
  connections: number,
  work: (db: Database) => Promise<number>,
  explain: (err: unknown) => boolean = () => false,
): Promise<number> {
  const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, max: connections });
  try {
    return await work(handle.db);
  } catch (err) {
    if (!explain(err)) console.error(`error: ${(err as Error).message}`);
    return 1;
  } finally {
    await handle.close();
  }
}

/** Runs `main` and sets the exit status when the module was started as a program, not imported (tests read its USAGE). */
export async function runAsProgram(moduleUrl: string, main: () => Promise<number>): Promise<void> {
  if (moduleUrl === pathToFileURL(process.argv[1] ?? '').href) process.exitCode = await main();
}
