/**
 * Staging: each source table is streamed, mapped row by row, and COPYed into an unlogged table of
 * the `philomena_staging` schema with only Tagwise's columns. Applying (apply.ts) then works set
 * by set in SQL. A staged table survives a stopped run, so a resumed run does not read it again.
 */
import type { Sql } from 'postgres';
import { CopyWriter, copyLine } from '../../seed/copy.js';
import { reasonKey, type Reporter, type TableTally } from './report.js';
import type { PhilomenaSource, RowFilter } from './source.js';
import type { SourceRow, TableSpec } from './tables.js';

export const STAGING = 'philomena_staging';

export const stagingTable = (target: string) => `${STAGING}."${target}"`;
export const keysTable = (target: string) => `${STAGING}."${target}__keys"`;

/** The source tables a spec reads, or a reason it cannot read any. */
export function sourceTablesOf(spec: TableSpec, tables: ReadonlyMap<string, readonly string[]>): { tables: TableSpec['sources'] } | { missing: string } {
  const present = spec.sources.filter((s) => tables.has(s.table));
  if (present.length === 0) return { missing: `no ${spec.sources.map((s) => s.table).join(' or ')} table` };
  const chosen = spec.union ? present : [present[0]!];
  for (const s of chosen) {
    const cols = tables.get(s.table)!;
    const lacking = spec.required.filter((field) => s.fixed?.[field] === undefined && !spec.fields[field]!.some((c) => cols.includes(c)));
    if (lacking.length > 0) return { missing: `${s.table} has no ${lacking.join(', ')} column` };
  }
  return { tables: chosen };
}

export async function createStaging(sql: Sql, spec: TableSpec): Promise<void> {
  await sql.unsafe(`create schema if not exists ${STAGING}`);
  await sql.unsafe(`drop table if exists ${stagingTable(spec.target)}`);
  if (spec.stagingColumns) await sql.unsafe(`create unlogged table ${stagingTable(spec.target)} (${spec.stagingColumns})`);
  else {
    const cols = spec.columns.map((c) => `"${c}"`).join(', ');
    await sql.unsafe(`create unlogged table ${stagingTable(spec.target)} as select ${cols} from public."${spec.target}" with no data`);
  }
  // Source order, for the order-bearing columns computed when applying (sources' positions);
  // only where one is computed, as numbering every row of the large tables costs time.
  if (spec.computed) await sql.unsafe(`alter table ${stagingTable(spec.target)} add column _ord bigint generated always as identity`);
}

/** Stream one spec's source tables into its staging table; returns the rows staged. */
export async function stageTable(
  sql: Sql,
  source: PhilomenaSource,
  spec: TableSpec,
  chosen: TableSpec['sources'],
  filter: RowFilter | undefined,
  estimate: number | undefined,
  tally: TableTally,
  reporter: Reporter,
): Promise<void> {
  await createStaging(sql, spec);
  reporter.progress(spec.target, 0, estimate);
  const cols = spec.columns.map((c) => `"${c}"`).join(', ');
  const writer = new CopyWriter(await sql.unsafe(`copy ${stagingTable(spec.target)} (${cols}) from stdin`).writable());
  try {
    for (const s of chosen) {
      const fieldNames = Object.keys(spec.fields);
      let fieldColumns: Array<string | undefined> = [];
      const { columns, rows } = await source.read(
        s.table,
        (available) => {
          fieldColumns = fieldNames.map((field) => spec.fields[field]!.find((c) => available.includes(c)));
          return [...new Set(fieldColumns.filter((c): c is string => c !== undefined))];
        },
        filter,
      );
      const at = fieldColumns.map((c) => (c === undefined ? -1 : columns.indexOf(c)));
      for await (const values of rows) {
        tally.read++;
        const row: SourceRow = { ...s.fixed };
        for (let i = 0; i < fieldNames.length; i++) if (at[i]! >= 0) row[fieldNames[i]!] = values[at[i]!];
        const mapped = spec.map(row);
        if (!Array.isArray(mapped)) {
          const reason = reasonKey(mapped.skip);
          tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
          reporter.skipped(spec.target, spec.describe(row), mapped.skip);
        } else if (writer.push(copyLine(mapped))) await writer.flush();
        if ((tally.read & 1023) === 0) reporter.progress(spec.target, tally.read, estimate);
      }
    }
    await writer.end();
  } catch (err) {
    await writer.end().catch(() => {});
    throw err;
  }
  tally.staged = writer.rows;
  reporter.progress(spec.target, tally.read, estimate, true);
}

/** Stage every id of a table (a live incremental run finds removed rows by their absence). */
export async function stageKeys(sql: Sql, source: PhilomenaSource, table: string, target: string): Promise<number> {
  await sql.unsafe(`drop table if exists ${keysTable(target)}`);
  await sql.unsafe(`create unlogged table ${keysTable(target)} (id integer)`);
  const writer = new CopyWriter(await sql.unsafe(`copy ${keysTable(target)} (id) from stdin`).writable());
  const { rows } = await source.read(table, () => ['id']);
  for await (const [id] of rows) if (writer.push(`${id}\n`)) await writer.flush();
  await writer.end();
  return writer.rows;
}
