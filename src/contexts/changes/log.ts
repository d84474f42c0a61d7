/**
 * Reading and pruning the change log (migration 0007): the sealed rows after a position, grouped
 * by the transaction that wrote them, and the horizon below which rows were pruned.
 */
import { and, asc, desc, gt, isNotNull, lt, lte, max, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { changeLog, changeLogHorizon } from '../../db/schema/index.js';
import type { ChangeGroup, ChangeRow } from './types.js';

/** Up to `limit` rows after `afterSeq`, in commit order. */
export async function changesAfter(db: Database, afterSeq: number, limit: number): Promise<ChangeRow[]> {
  const rows = await db
    .select({
      seq: changeLog.seq,
      xact: changeLog.xact,
      kind: changeLog.kind,
      recordId: changeLog.recordId,
      change: changeLog.change,
      detail: changeLog.detail,
      createdAt: changeLog.createdAt,
    })
    .from(changeLog)
    .where(and(isNotNull(changeLog.seq), gt(changeLog.seq, afterSeq)))
    .orderBy(asc(changeLog.seq))
    .limit(limit);
  return rows.map((r) => ({ ...r, seq: r.seq!, detail: (r.detail ?? null) as Record<string, unknown> | null }));
}

/**
 * Rows after `afterSeq` as whole transactions, up to about `limit` rows (a transaction is never
 * split: the last, cut one is read to its end).
 */
export async function changeGroupsAfter(db: Database, afterSeq: number, limit: number): Promise<ChangeGroup[]> {
  const rows = await changesAfter(db, afterSeq, limit);
  if (rows.length === limit) {
    const last = rows[rows.length - 1]!;
    const rest = await db
      .select({ seq: changeLog.seq })
      .from(changeLog)
      .where(and(gt(changeLog.seq, last.seq), sql`${changeLog.xact} = ${last.xact}::xid8`))
      .orderBy(desc(changeLog.seq))
      .limit(1);
    if (rest.length > 0) rows.push(...(await changesAfter(db, last.seq, rest[0]!.seq! - last.seq)));
  }
  return groupByTransaction(rows);
}

/** Consecutive rows of one transaction form one group (sealing keeps them consecutive). */
export function groupByTransaction(rows: readonly ChangeRow[]): ChangeGroup[] {
  const groups: ChangeGroup[] = [];
  for (const row of rows) {
    const last = groups[groups.length - 1];
    if (last !== undefined && last.xact === row.xact) {
      last.rows.push(row);
      last.seq = row.seq;
    } else {
      groups.push({ seq: row.seq, xact: row.xact, rows: [row] });
    }
  }
  return groups;
}

/** The newest sealed position (0 for an empty log). */
export async function latestChangeSeq(db: Database): Promise<number> {
  const [row] = await db.select({ seq: max(changeLog.seq) }).from(changeLog);
  return Number(row?.seq ?? 0);
}

/** Positions up to this one may have been pruned: a cursor below it cannot be continued. */
export async function prunedThrough(db: Database): Promise<number> {
  const [row] = await db.select({ through: changeLogHorizon.prunedThrough }).from(changeLogHorizon);
  return row?.through ?? 0;
}

/** The newest position written before `at` (0 if none is retained): where a dump taken at `at` continues. */
export async function changeSeqBefore(db: Database, at: Date): Promise<number> {
  const [row] = await db.select({ seq: max(changeLog.seq) }).from(changeLog).where(lt(changeLog.createdAt, at));
  return Number(row?.seq ?? 0);
}

/** Delete the rows written before `before`, moving the horizon past them. Returns how many went. */
export async function pruneChangeLog(db: Database, before: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const [newest] = await tx.select({ seq: max(changeLog.seq) }).from(changeLog).where(lt(changeLog.createdAt, before));
    const through = Number(newest?.seq ?? 0);
    if (through === 0) return 0;
    const deleted = await tx.delete(changeLog).where(lte(changeLog.seq, through)).returning({ seq: changeLog.seq });
    await tx
      .update(changeLogHorizon)
      .set({ prunedThrough: sql`greatest(${changeLogHorizon.prunedThrough}, ${through})`, prunedAt: new Date() });
    return deleted.length;
  });
}
