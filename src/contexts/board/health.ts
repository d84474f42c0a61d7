/** The board as a whole, for health checks: whether the database answers, and how many records it holds. */
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';

const COUNTED = ['images', 'tags', 'users', 'comments', 'posts', 'galleries', 'filters'] as const;
export type RecordCounts = Record<(typeof COUNTED)[number], number>;

const COUNT_QUERY = sql.raw(`select ${COUNTED.map((t) => `(select count(*) from ${t})::int as ${t}`).join(', ')}`);

/** Rows of each counted table, in one query. */
export async function countRecords(db: Database): Promise<RecordCounts> {
  const rows = await db.execute<RecordCounts>(COUNT_QUERY);
  const row = rows[0];
  if (!row) throw new Error('no row');
  return Object.fromEntries(COUNTED.map((t) => [t, Number(row[t])])) as RecordCounts;
}

/** Resolves when the database answers a trivial query. */
export async function pingDatabase(db: Database): Promise<void> {
  await db.execute(sql`select 1`);
}
