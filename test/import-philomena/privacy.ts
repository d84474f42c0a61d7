/**
 * Where the private markers of the fixture could have landed on the board: any row of any table
 * (as text), the target database's own files on the server, and files under given directories.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from 'postgres';
import { PRIVATE_IP, PRIVATE_MARKER } from '../support/philomena/schema.js';

const NEEDLES = [PRIVATE_MARKER, PRIVATE_IP];

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) continue;
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile()) out.push(path);
  }
  return out;
}

/** The file's bytes, or undefined if it is gone. */
function readOrNothing(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Every place a marker was found, as `table …` or a file path. */
export async function findPrivateValues(sql: Sql, dirs: readonly string[]): Promise<string[]> {
  const found: string[] = [];
  const tables = await sql<Array<{ schema: string; name: string }>>`
    select schemaname as schema, tablename as name from pg_tables where schemaname not in ('pg_catalog', 'information_schema')`;
  for (const t of tables) {
    const rel = `"${t.schema}"."${t.name}"`;
    for (const needle of NEEDLES) {
      const [row] = await sql.unsafe<Array<{ n: number }>>(`select count(*)::int as n from ${rel} r where r::text like $1`, [`%${needle}%`]);
      if (row!.n > 0) found.push(`table ${rel}: ${needle}`);
    }
  }
  await sql`checkpoint`;
  const [where] = await sql<Array<{ dir: string; oid: number }>>`
    select current_setting('data_directory') as dir, oid::int as oid from pg_database where datname = current_database()`;
  for (const path of [...filesUnder(join(where!.dir, 'base', String(where!.oid))), ...dirs.flatMap(filesUnder)]) {
    // the server keeps working beside the scan (other test files' databases): a file it removed
    // meanwhile (a relation cache, a dropped table's) held nothing to find
    const bytes = readOrNothing(path);
    if (bytes === undefined) continue;
    for (const needle of NEEDLES) if (bytes.includes(needle)) found.push(`${path}: ${needle}`);
  }
  return found;
}
