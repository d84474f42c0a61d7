import { boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './users.js';
import { authorColumns, moderationColumns } from './message-columns.js';

export const accessLevels = ['normal', 'assistant', 'staff'] as const;

export const forums = pgTable('forums', {
  id: serial().primaryKey(),
  name: text().notNull(),
  shortName: text().notNull(),
  description: text().notNull().default(''),
  accessLevel: text({ enum: accessLevels }).notNull().default('normal'),
  topicCount: integer().notNull().default(0),
  postCount: integer().notNull().default(0),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [uniqueIndex('forums_short_name_idx').on(t.shortName)]);

export const topics = pgTable('topics', {
  id: serial().primaryKey(),
  forumId: integer().notNull().references(() => forums.id, { onDelete: 'cascade' }),
  userId: integer().references(() => users.id, { onDelete: 'set null' }),
  anonymous: boolean().notNull().default(false),
  title: text().notNull(),
  slug: text().notNull(),
  sticky: boolean().notNull().default(false),
  lockedAt: timestamp({ withTimezone: true }),
  hiddenFromUsers: boolean().notNull().default(false),
  deletionReason: text().notNull().default(''),
  postCount: integer().notNull().default(0),
  viewCount: integer().notNull().default(0),
  lastRepliedToAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [uniqueIndex('topics_forum_slug_idx').on(t.forumId, t.slug)]);

export const posts = pgTable('posts', {
  id: serial().primaryKey(),
  topicId: integer().notNull().references(() => topics.id, { onDelete: 'cascade' }),
  ...authorColumns(),
  body: text().notNull(),
  /** Position in the topic, from 0. */
  topicPosition: integer().notNull(),
  ...moderationColumns(),
}, (t) => [index('posts_topic_position_idx').on(t.topicId, t.topicPosition), index('posts_user_idx').on(t.userId)]);
