/**
 * Staging: each source table is streamed and COPYed into an unlogged table of the
 * `philomena_staging` schema with only Tagwise's columns: a line whose values need no mapping
 * (the table's `direct` patterns) as it came, any other line mapped. Applying (apply.ts) then works set
 * by set in SQL. A staged table survives a stopped run, so a resumed run does not read it again.
 */
import type { Sql } from 'postgres';
import { CopyWriter, copyLine } from '../../seed/copy.js';
import { decodeCopyLine } from './copy-text.js';
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

/** How lines matching a table's `direct` patterns are staged: as they came, nulls replaced. */
export interface DirectLines {
  pattern: RegExp;
  /** Field index → the constant staged for a null there. */
  nulls: Array<[number, string]>;
}

/**
 * The source columns to read for `spec` from a table with `available` columns: one per field
 * (the first of its names the table has), and whether its lines can be staged as they come: the
 * spec has a `direct` pattern for every field, each field is a target column of the same name
 * and the table has them all; then the columns are read in target column order.
 */
export function columnsToRead(spec: TableSpec, fixed: boolean, available: readonly string[]): { fieldColumns: Array<string | undefined>; read: string[]; direct: DirectLines | undefined } {
  const fieldNames = Object.keys(spec.fields);
  const fieldColumns = fieldNames.map((field) => spec.fields[field]!.find((c) => available.includes(c)));
  const direct = spec.direct;
  if (direct && !fixed && spec.columns.length === fieldNames.length && fieldColumns.every((c) => c !== undefined) &&
    spec.columns.every((c) => fieldNames.includes(c) && direct[c] !== undefined)) {
    const nulls: DirectLines['nulls'] = [];
    const parts = spec.columns.map((c, i) => {
      const d = direct[c]!;
      if (typeof d === 'string') return d;
      nulls.push([i, d.ifNull]);
      return `(?:\\\\N|${d.pattern})`;
    });
    return {
      fieldColumns,
      read: spec.columns.map((c) => fieldColumns[fieldNames.indexOf(c)]!),
      direct: { pattern: new RegExp(`^${parts.join('\\t')}$`), nulls },
    };
  }
  return { fieldColumns, read: [...new Set(fieldColumns.filter((c): c is string => c !== undefined))], direct: undefined };
}

/** A line matching `direct`, with the nulls `map` would replace replaced. */
function directLine(line: string, direct: DirectLines): string {
  if (direct.nulls.length === 0 || !line.includes('\\N')) return line;
  const fields = line.split('\t');
  for (const [i, constant] of direct.nulls) if (fields[i] === '\\N') fields[i] = constant;
  return fields.join('\t');
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
  // Lines staged as they came carry source times without an offset: UTC, as `map` would say.
  const conn = await sql.reserve();
  try {
    await conn.unsafe(`set time zone 'UTC'`);
    const writer = new CopyWriter(await conn.unsafe(`copy ${stagingTable(spec.target)} (${cols}) from stdin`).writable());
    try {
      const fieldNames = Object.keys(spec.fields);
      for (const s of chosen) {
        let plan: ReturnType<typeof columnsToRead> | undefined;
        const { columns, lines } = await source.read(
          s.table,
          (available) => {
            plan = columnsToRead(spec, s.fixed !== undefined, available);
            return plan.read;
          },
          filter,
        );
        const { fieldColumns, direct } = plan!;
        const at = fieldColumns.map((c) => (c === undefined ? -1 : columns.indexOf(c)));
        for await (const batch of lines) {
          for (const line of batch) {
            tally.read++;
            if (direct?.pattern.test(line)) {
              if (writer.push(`${directLine(line, direct)}\n`)) await writer.flush();
            } else {
              const values = decodeCopyLine(line);
              const row: SourceRow = { ...s.fixed };
              for (let i = 0; i < fieldNames.length; i++) if (at[i]! >= 0) row[fieldNames[i]!] = values[at[i]!];
              const mapped = spec.map(row);
              if (!Array.isArray(mapped)) {
                const reason = reasonKey(mapped.skip);
                tally.skipped[reason] = (tally.skipped[reason] ?? 0) + 1;
                reporter.skipped(spec.target, spec.describe(row), mapped.skip);
              } else if (writer.push(copyLine(mapped))) await writer.flush();
            }
            if ((tally.read & 1023) === 0) reporter.progress(spec.target, tally.read, estimate);
          }
        }
      }
      await writer.end();
    } catch (err) {
      await writer.end().catch(() => {});
      throw err;
    }
    tally.staged = writer.rows;
  } finally {
    await conn.unsafe('reset time zone').catch(() => {});
    conn.release();
  }
  reporter.progress(spec.target, tally.read, estimate, true);
}

/** Stage every id of a table (a live incremental run finds removed rows by their absence). */
export async function stageKeys(sql: Sql, source: PhilomenaSource, table: string, target: string): Promise<number> {
  await sql.unsafe(`drop table if exists ${keysTable(target)}`);
  await sql.unsafe(`create unlogged table ${keysTable(target)} (id integer)`);
  const writer = new CopyWriter(await sql.unsafe(`copy ${keysTable(target)} (id) from stdin`).writable());
  const { lines } = await source.read(table, () => ['id']);
  for await (const batch of lines) for (const id of batch) if (writer.push(`${id}\n`)) await writer.flush();
  await writer.end();
  return writer.rows;
}
