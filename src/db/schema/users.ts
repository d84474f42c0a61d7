import { boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { tags } from './tags.js';

export const roles = ['user', 'assistant', 'moderator', 'admin'] as const;
export type Role = (typeof roles)[number];

export const users = pgTable('users', {
  id: serial().primaryKey(),
  name: text().notNull(),
  slug: text().notNull(),
  email: text(),
  role: text({ enum: roles }).notNull().default('user'),
  hideDefaultRole: boolean().notNull().default(false),
  description: text().notNull().default(''),
  /** Storage path of an uploaded avatar, relative to the avatar root; null means a generated one. */
  avatar: text(),
  verified: boolean().notNull().default(false),
  imagesCount: integer().notNull().default(0),
  commentsCount: integer().notNull().default(0),
  postsCount: integer().notNull().default(0),
  topicsCount: integer().notNull().default(0),
  currentFilterId: integer(),
  imagesPerPage: integer().notNull().default(25),
  watchedTagIds: integer().array().notNull().default([]),
  watchedImagesQueryStr: text().notNull().default(''),
  watchedImagesExcludeStr: text().notNull().default(''),
  noSpoileredInWatched: boolean().notNull().default(false),
  confirmedAt: timestamp({ withTimezone: true }).defaultNow(),
  deletedAt: timestamp({ withTimezone: true }),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [uniqueIndex('users_name_idx').on(t.name), uniqueIndex('users_slug_idx').on(t.slug)]);

/** API keys are stored as SHA-256 hashes; the clear key is shown once when issued. */
export const apiKeys = pgTable('api_keys', {
  id: serial().primaryKey(),
  userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
  keyHash: text().notNull(),
  /** First characters of the key, so an operator can tell keys apart. */
  prefix: text().notNull(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  revokedAt: timestamp({ withTimezone: true }),
}, (t) => [uniqueIndex('api_keys_hash_idx').on(t.keyHash), index('api_keys_user_idx').on(t.userId)]);

export const linkStates = ['unverified', 'link_verified', 'verified', 'rejected'] as const;

export const userLinks = pgTable('user_links', {
  id: serial().primaryKey(),
  userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
  tagId: integer().references(() => tags.id, { onDelete: 'set null' }),
  uri: text().notNull(),
  state: text({ enum: linkStates }).notNull().default('unverified'),
  public: boolean().notNull().default(true),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('user_links_user_idx').on(t.userId)]);

export const badges = pgTable('badges', {
  id: serial().primaryKey(),
  title: text().notNull(),
  description: text().notNull().default(''),
  /** File name under the badge image root. */
  image: text().notNull(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});

export const badgeAwards = pgTable('badge_awards', {
  id: serial().primaryKey(),
  badgeId: integer().notNull().references(() => badges.id, { onDelete: 'cascade' }),
  userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
  label: text().notNull().default(''),
  awardedOn: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('badge_awards_user_idx').on(t.userId)]);
