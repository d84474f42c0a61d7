import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { images } from './images.js';
import { users } from './users.js';

export const galleries = pgTable('galleries', {
  id: serial().primaryKey(),
  title: text().notNull(),
  description: text().notNull().default(''),
  spoilerWarning: text().notNull().default(''),
  thumbnailId: integer().notNull().references(() => images.id),
  creatorId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
  imageCount: integer().notNull().default(0),
  /** The creator chose not to be shown. */
  anonymous: boolean().notNull().default(false),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [index('galleries_creator_idx').on(t.creatorId)]);

/** Images of a gallery with their order (position from 0). */
export const galleryInteractions = pgTable('gallery_interactions', {
  galleryId: integer().notNull().references(() => galleries.id, { onDelete: 'cascade' }),
  imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  position: integer().notNull(),
}, (t) => [primaryKey({ columns: [t.galleryId, t.imageId] }), index('gallery_interactions_image_idx').on(t.imageId)]);

export const gallerySubscriptions = pgTable('gallery_subscriptions', {
  galleryId: integer().notNull().references(() => galleries.id, { onDelete: 'cascade' }),
  userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
}, (t) => [primaryKey({ columns: [t.galleryId, t.userId] })]);
