import { bigint, bigserial, boolean, customType, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** PostgreSQL's 64-bit transaction id, read as text. */
const xid8 = customType<{ data: string }>({ dataType: () => 'xid8' });

/**
 * Changes to public records in commit order (migration 0007): written by triggers in the changing
 * transaction, `seq` assigned just before its commit; kept for a retention window. Feeds the
 * firehose, live searches and the change feed.
 */
export const changeLog = pgTable('change_log', {
  id: bigserial({ mode: 'number' }).primaryKey(),
  /** Position in commit order; null only inside the writing transaction. */
  seq: bigint({ mode: 'number' }),
  xact: xid8().notNull(),
  /** image, comment, post, tag, gallery, or board (a bulk load: start over from a dump). */
  kind: text().notNull(),
  recordId: integer().notNull(),
  /** created, updated, hidden, unhidden, merged, deleted, processed, description, tag_added, tag_removed, source_added, source_removed, reset. */
  change: text().notNull(),
  detail: jsonb(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [uniqueIndex('change_log_seq_idx').on(t.seq), index('change_log_created_idx').on(t.createdAt)]);

/** The one row saying up to which `seq` the log was pruned. */
export const changeLogHorizon = pgTable('change_log_horizon', {
  singleton: boolean().primaryKey().default(true),
  prunedThrough: bigint({ mode: 'number' }).notNull().default(0),
  prunedAt: timestamp({ withTimezone: true }),
});
