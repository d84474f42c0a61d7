/**
 * The columns an image comment and a forum post share, as Philomena declares them on both tables:
 * who wrote the message, and its moderation state and times. Functions, because each table needs
 * its own column builders.
 */
import { boolean, inet, integer, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

export const authorColumns = () => ({
  userId: integer().references(() => users.id, { onDelete: 'set null' }),
  anonymous: boolean().notNull().default(false),
  ip: inet(),
  fingerprint: text(),
});

export const moderationColumns = () => ({
  approved: boolean().notNull().default(true),
  hiddenFromUsers: boolean().notNull().default(false),
  destroyedContent: boolean().notNull().default(false),
  deletionReason: text().notNull().default(''),
  deletedById: integer().references(() => users.id, { onDelete: 'set null' }),
  editedAt: timestamp({ withTimezone: true }),
  editReason: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
