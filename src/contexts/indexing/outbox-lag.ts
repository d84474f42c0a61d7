/**
 * How far the search indices trail the database: the changes written to the outbox (by the
 * triggers of src/db/migrations/0001_outbox_triggers.sql, in the writing transaction) that no
 * indexer has applied yet. Read by `/readyz`, `/metrics` and `indexer status`.
 */
import type { Database } from '../../db/client.js';

/** Outbox rows currently pending, and the age of the oldest. */
export async function outboxLag(db: Database): Promise<{ pending: number; oldestAgeSeconds: number | null; byKind: Record<string, number> }> {
  const rows = await db.$client.unsafe<{ kind: string; n: number; oldest: number | null }[]>(
    `select index as kind, count(*)::int as n, extract(epoch from now() - min(created_at))::float8 as oldest
     from search_outbox group by index order by index`,
  );
  let pending = 0;
  let oldest: number | null = null;
  const byKind: Record<string, number> = {};
  for (const r of rows) {
    pending += r.n;
    byKind[r.kind] = r.n;
    if (r.oldest !== null) oldest = Math.max(oldest ?? 0, r.oldest);
  }
  return { pending, oldestAgeSeconds: oldest, byKind };
}
