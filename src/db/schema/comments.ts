import { boolean, index, inet, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { images } from './images.js';
import { users } from './users.js';

export const comments = pgTable('comments', {
  id: serial().primaryKey(),
  imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  userId: integer().references(() => users.id, { onDelete: 'set null' }),
  anonymous: boolean().notNull().default(false),
  ip: inet(),
  fingerprint: text(),
  body: text().notNull(),
  approved: boolean().notNull().default(true),
  hiddenFromUsers: boolean().notNull().default(false),
  destroyedContent: boolean().notNull().default(false),
  deletionReason: text().notNull().default(''),
  deletedById: integer().references(() => users.id, { onDelete: 'set null' }),
  editedAt: timestamp({ withTimezone: true }),
  editReason: text(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('comments_image_idx').on(t.imageId), index('comments_user_idx').on(t.userId)]);
