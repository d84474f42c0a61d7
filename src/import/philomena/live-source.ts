/**
 * Reading a live Philomena database: one REPEATABLE READ READ ONLY transaction for the whole run,
 * each table streamed with `COPY (SELECT <named columns> …) TO STDOUT`, so memory stays flat and
 * every table is read from the same snapshot. Nothing but the named columns is ever selected.
 * The lines are the ones a dump's COPY block holds, so one mapper serves both.
 */
import type { Readable } from 'node:stream';
import postgres, { type ReservedSql } from 'postgres';
import { streamLines } from './copy-text.js';
import type { PhilomenaSource, RowFilter, TableLines } from './source.js';

const ident = (name: string) => `"${name.replace(/"/g, '""')}"`;
const literal = (value: string) => `'${value.replace(/'/g, "''")}'`;

/** A database URL without its credentials: `postgres://host:port/name`. */
export function sourceLabel(url: string): string {
  const u = new URL(url);
  return `postgres://${u.host}${u.pathname}`;
}

/**
 * The lines of a `COPY … TO STDOUT`, read to the end before the connection is used again.
 * postgres.js pauses its socket when the stream's buffer is full and resumes it only when the
 * stream asks for more; when the COPY's last chunk filled the buffer, the stream ends without
 * asking, and the rest of the answer would never be read: the socket is resumed at the end.
 */
async function* copyOut(reserved: ReservedSql, query: string): AsyncGenerator<string[]> {
  const pending = reserved.unsafe(query);
  const stream = (await pending.readable()) as Readable & { _read(size: number): void };
  // A failure once the COPY has begun rejects the query, not the stream: end the stream with it.
  const settled = pending.then(
    () => null,
    (err: Error) => {
      stream.destroy(err);
      return err;
    },
  );
  let complete = false;
  try {
    // Not destroyed when the reader stops early: a destroyed stream would pause the socket again.
    yield* streamLines(stream.iterator({ destroyOnReturn: false }));
    complete = true;
  } finally {
    // A reader that stops early (a failed staging COPY) cancels the rest of the read.
    if (!complete) pending.cancel();
    stream.resume();
    stream._read(0);
    await settled;
  }
  const err = await settled;
  if (err) throw err;
}

export async function openLiveSource(url: string): Promise<PhilomenaSource> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { application_name: 'tagwise-import' } });
  let reserved: ReservedSql;
  try {
    reserved = await sql.reserve();
    await reserved.unsafe('begin isolation level repeatable read read only');
  } catch (err) {
    await sql.end({ timeout: 5 });
    throw err;
  }
  let tableCache: Map<string, string[]> | undefined;
  const source: PhilomenaSource = {
    label: sourceLabel(url),
    filters: true,
    async tables() {
      if (tableCache) return tableCache;
      const rows = await reserved.unsafe<Array<{ table_name: string; column_name: string }>>(
        `select table_name, column_name from information_schema.columns
         where table_schema = current_schema() order by table_name, ordinal_position`,
      );
      tableCache = new Map();
      for (const r of rows) {
        const list = tableCache.get(r.table_name) ?? [];
        list.push(r.column_name);
        tableCache.set(r.table_name, list);
      }
      return tableCache;
    },
    async migrations() {
      if (!(await source.tables()).has('schema_migrations')) return [];
      const rows = await reserved.unsafe<Array<{ version: string }>>('select version::text as version from schema_migrations order by 1');
      return rows.map((r) => r.version);
    },
    async estimate(table) {
      const [row] = await reserved.unsafe<Array<{ n: number }>>(`select reltuples::float8 as n from pg_class where oid = to_regclass(${literal(ident(table))})`);
      return row && row.n > 0 ? row.n : undefined;
    },
    async snapshotTime() {
      const [row] = await reserved.unsafe<Array<{ now: string }>>(`select (now() at time zone 'UTC')::text as now`);
      return row!.now;
    },
    async read(table: string, pick, filter: RowFilter = {}): Promise<TableLines> {
      const available = (await source.tables()).get(table);
      if (!available) throw new Error(`the source has no table ${table}`);
      const columns = pick(available);
      const where: string[] = [];
      if (filter.updatedSince !== undefined) where.push(`updated_at >= ${literal(filter.updatedSince)}`);
      if (filter.imagesChangedSince !== undefined) {
        where.push(`image_id in (select id from images where updated_at >= ${literal(filter.imagesChangedSince)})`);
      }
      const query = `copy (select ${columns.map(ident).join(', ')} from ${ident(table)}${where.length ? ` where ${where.join(' and ')}` : ''}) to stdout`;
      return { columns, lines: copyOut(reserved, query) };
    },
    async close() {
      try {
        await reserved.unsafe('rollback');
      } finally {
        reserved.release();
        await sql.end({ timeout: 5 });
      }
    },
  };
  return source;
}
