/**
 * The ids of an indexed table, for a full reindex or a drift check (search/indexes/index.ts names
 * the table of each index).
 */
import type { Database } from '../../../db/client.js';

/** Number of rows in `table` (an indexed table's name). */
export async function countTableRows(db: Database, table: string): Promise<number> {
  const rows = await db.$client.unsafe<{ n: number }[]>(`select count(*)::int as n from "${table}"`);
  return rows[0]?.n ?? 0;
}

/**
 * Every id of `table` in ascending order (descending with `newestFirst`), in batches of
 * `batchSize`, by keyset (`id > last order by id limit n`), so a walk over millions of rows never
 * holds a cursor or an offset. Rows inserted behind the walk are not seen; the outbox covers them.
 */
export async function* tableIdBatches(
  db: Database,
  table: string,
  options: { batchSize?: number; after?: number; newestFirst?: boolean } = {},
): AsyncGenerator<number[]> {
  const batchSize = options.batchSize ?? 5000;
  const query = options.newestFirst
    ? `select id from "${table}" where id < $1 order by id desc limit $2`
    : `select id from "${table}" where id > $1 order by id limit $2`;
  let last = options.newestFirst ? 2_147_483_647 : (options.after ?? -2_147_483_648);
  for (;;) {
    const rows = await db.$client.unsafe<{ id: number }[]>(query, [last, batchSize], { prepare: true });
    if (rows.length === 0) return;
    const ids = rows.map((r) => r.id);
    yield ids;
    last = ids[ids.length - 1]!;
    if (rows.length < batchSize) return;
  }
}
