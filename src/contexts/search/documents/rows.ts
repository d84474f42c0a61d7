/**
 * How every index's documents are read from PostgreSQL: one set-based query per batch of ids, its
 * rows fetched as one JSON array, and timestamps formatted by the database as the documents store them.
 */
import { sqlClientOf, type Database } from '../../../db/client.js';

/** A timestamptz column as an ISO 8601 UTC string with milliseconds, like `Date#toISOString`. */
export const isoTime = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The rows of `query` (which takes the id array as `$1` and yields an `id` column) in id order,
 * fetched as one JSON array: cheaper to parse than text arrays row by row. The order is set here,
 * so the queries themselves need none.
 */
export async function fetchDocumentRows<Row>(db: Database, query: string, ids: number[]): Promise<Row[]> {
  if (ids.length === 0) return [];
  const asJson = `select json_agg(x order by x.id) as rows from (${query}) x`;
  const [result] = await sqlClientOf(db).unsafe<{ rows: Row[] | null }[]>(asJson, [ids as never], { prepare: true });
  return result?.rows ?? [];
}

/**
 * A query for a batch's parents (`parent` in the id array `$1`) with the ids of their `child`
 * column in `table`, as `ids`, in `orderBy` order (by default the ids themselves).
 */
export function idListPer(table: string, parent: string, child: string, orderBy = child): string {
  return `
    select ${parent}, array_agg(${child} order by ${orderBy}) as ids
    from ${table}
    where ${parent} = any($1::int[])
    group by ${parent}`;
}
