import { type AnyPgColumn, boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const tagCategories = [
  'character', 'content-fanmade', 'content-official', 'error', 'oc', 'origin', 'rating', 'species', 'spoiler', 'body-type',
] as const;
export type TagCategory = (typeof tagCategories)[number];

export const tags = pgTable('tags', {
  id: serial().primaryKey(),
  name: text().notNull(),
  slug: text().notNull(),
  namespace: text(),
  nameInNamespace: text().notNull(),
  category: text({ enum: tagCategories }),
  description: text().notNull().default(''),
  shortDescription: text().notNull().default(''),
  /** Spoiler image file name under the tag image root. */
  image: text(),
  imagesCount: integer().notNull().default(0),
  aliasedTagId: integer().references((): AnyPgColumn => tags.id, { onDelete: 'set null' }),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  uniqueIndex('tags_name_idx').on(t.name),
  uniqueIndex('tags_slug_idx').on(t.slug),
  index('tags_aliased_tag_idx').on(t.aliasedTagId),
]);

export const tagImplications = pgTable('tag_implications', {
  tagId: integer().notNull().references(() => tags.id, { onDelete: 'cascade' }),
  impliedTagId: integer().notNull().references(() => tags.id, { onDelete: 'cascade' }),
}, (t) => [primaryKey({ columns: [t.tagId, t.impliedTagId] }), index('tag_implications_implied_idx').on(t.impliedTagId)]);

export const dnpTypes = [
  'No Edits', 'Artist Tag Change', 'Uploader Credit Change', 'Certain Type/Location Only',
  'With Permission Only', 'Artist Upload Only', 'Other',
] as const;

export const dnpEntries = pgTable('dnp_entries', {
  id: serial().primaryKey(),
  tagId: integer().notNull().references(() => tags.id, { onDelete: 'cascade' }),
  dnpType: text({ enum: dnpTypes }).notNull(),
  conditions: text().notNull().default(''),
  reason: text().notNull().default(''),
  hideReason: boolean().notNull().default(false),
  state: text({ enum: ['requested', 'claimed', 'listed', 'rescinded', 'acknowledged', 'closed'] }).notNull().default('listed'),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('dnp_entries_tag_idx').on(t.tagId)]);
