import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, check, cidr, index, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/** User and IP bans; `automatic` marks the temporary ones the request limiter issues. */
export const bans = pgTable('bans', {
  id: serial().primaryKey(),
  userId: integer().references(() => users.id, { onDelete: 'cascade' }),
  ip: cidr(),
  reason: text().notNull(),
  note: text().notNull().default(''),
  enabled: boolean().notNull().default(true),
  automatic: boolean().notNull().default(false),
  validUntil: timestamp({ withTimezone: true }),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('bans_user_idx').on(t.userId)]);

/**
 * Changes the indexer still has to apply. Rows are written by triggers in the same transaction as
 * the change; `index` is a search index name, or `users`/`tags` for changes that fan out.
 */
export const searchOutbox = pgTable('search_outbox', {
  id: bigserial({ mode: 'number' }).primaryKey(),
  index: text().notNull(),
  recordId: integer().notNull(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

/**
 * The highest outbox id deleted after the embedded engine flushed it (one row): an index on disk
 * that covers less missed writes (see src/search/embedded/persistence/snapshot.ts).
 */
export const searchOutboxApplied = pgTable('search_outbox_applied', {
  singleton: boolean().primaryKey().default(true),
  through: bigint({ mode: 'number' }).notNull(),
}, (t) => [check('search_outbox_applied_singleton', sql`${t.singleton}`)]);

/** Durable background jobs (image processing), claimed with SKIP LOCKED. */
export const jobs = pgTable('jobs', {
  id: bigserial({ mode: 'number' }).primaryKey(),
  kind: text().notNull(),
  payload: jsonb().notNull().default({}),
  state: text({ enum: ['queued', 'running', 'done', 'parked'] }).notNull().default('queued'),
  attempts: integer().notNull().default(0),
  maxAttempts: integer().notNull().default(5),
  runAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  lockedAt: timestamp({ withTimezone: true }),
  lastError: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('jobs_claim_idx').on(t.state, t.runAt)]);
