import { boolean, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

export const filters = pgTable('filters', {
  id: serial().primaryKey(),
  name: text().notNull(),
  description: text().notNull().default(''),
  system: boolean().notNull().default(false),
  public: boolean().notNull().default(false),
  userId: integer().references(() => users.id, { onDelete: 'cascade' }),
  userCount: integer().notNull().default(0),
  hiddenTagIds: integer().array().notNull().default([]),
  spoileredTagIds: integer().array().notNull().default([]),
  hiddenComplexStr: text().notNull().default(''),
  spoileredComplexStr: text().notNull().default(''),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('filters_user_idx').on(t.userId)]);
