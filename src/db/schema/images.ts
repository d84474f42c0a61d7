import { boolean, doublePrecision, index, inet, integer, pgTable, primaryKey, serial, smallint, text, timestamp, unique } from 'drizzle-orm/pg-core';
import { tags } from './tags.js';
import { users } from './users.js';

export const imageFormats = ['gif', 'jpg', 'jpeg', 'png', 'svg', 'webm'] as const;
export const imageMimeTypes = ['image/gif', 'image/jpeg', 'image/png', 'image/svg+xml', 'video/webm'] as const;

export const images = pgTable('images', {
  id: serial().primaryKey(),
  userId: integer().references(() => users.id, { onDelete: 'set null' }),
  anonymous: boolean().notNull().default(false),
  ip: inet(),
  fingerprint: text(),
  imageName: text().notNull().default(''),
  imageWidth: integer().notNull().default(0),
  imageHeight: integer().notNull().default(0),
  imageSize: integer().notNull().default(0),
  imageOrigSize: integer().notNull().default(0),
  imageFormat: text({ enum: imageFormats }).notNull(),
  imageMimeType: text({ enum: imageMimeTypes }).notNull(),
  imageAspectRatio: doublePrecision().notNull().default(1),
  /** Seconds; 0 for stills. */
  imageDuration: doublePrecision().notNull().default(0),
  isAnimated: boolean().notNull().default(false),
  imageSha512Hash: text().notNull().default(''),
  imageOrigSha512Hash: text().notNull().default(''),
  /** Key of the original file in the image store (`Y/M/D/ID/full.EXT`); null until stored. */
  storageKey: text(),
  description: text().notNull().default(''),
  score: integer().notNull().default(0),
  upvotesCount: integer().notNull().default(0),
  downvotesCount: integer().notNull().default(0),
  favesCount: integer().notNull().default(0),
  hidesCount: integer().notNull().default(0),
  commentsCount: integer().notNull().default(0),
  approved: boolean().notNull().default(true),
  hiddenFromUsers: boolean().notNull().default(false),
  deletionReason: text(),
  duplicateId: integer(),
  deletedById: integer().references(() => users.id, { onDelete: 'set null' }),
  destroyedContent: boolean().notNull().default(false),
  processed: boolean().notNull().default(false),
  thumbnailsGenerated: boolean().notNull().default(false),
  duplicationChecked: boolean().notNull().default(false),
  scratchpad: text(),
  firstSeenAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [
  index('images_user_idx').on(t.userId),
  index('images_orig_sha512_idx').on(t.imageOrigSha512Hash),
  index('images_first_seen_idx').on(t.firstSeenAt),
]);

/** Tags of an image in the order they were added. */
export const imageTaggings = pgTable('image_taggings', {
  imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  tagId: integer().notNull().references(() => tags.id, { onDelete: 'cascade' }),
  position: integer().notNull().default(0),
}, (t) => [primaryKey({ columns: [t.imageId, t.tagId] }), index('image_taggings_tag_idx').on(t.tagId)]);

export const imageSources = pgTable('image_sources', {
  imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  source: text().notNull(),
  position: integer().notNull().default(0),
}, (t) => [primaryKey({ columns: [t.imageId, t.source] })]);

export const imageIntensities = pgTable('image_intensities', {
  imageId: integer().primaryKey().references(() => images.id, { onDelete: 'cascade' }),
  nw: doublePrecision().notNull(),
  ne: doublePrecision().notNull(),
  sw: doublePrecision().notNull(),
  se: doublePrecision().notNull(),
}, (t) => [index('image_intensities_nw_idx').on(t.nw)]);

/** Perceptual hashes of an image (src/media/fingerprint.ts), 16 hex digits each. */
export const imageFingerprints = pgTable('image_fingerprints', {
  imageId: integer().primaryKey().references(() => images.id, { onDelete: 'cascade' }),
  phash: text().notNull(),
  chash: text().notNull(),
  /** The 90 % regions' hashes: centre, nw, ne, sw, se (empty before a backfill to version 2). */
  rhashes: text().array().notNull().default([]),
  version: smallint().notNull(),
});

/** Near-duplicates found at submission: `imageId` resembles `duplicateOfImageId`. */
export const duplicateReports = pgTable('duplicate_reports', {
  id: serial().primaryKey(),
  imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  duplicateOfImageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  distance: smallint().notNull(),
  state: text({ enum: ['open', 'merged', 'dismissed'] }).notNull().default('open'),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [unique().on(t.imageId, t.duplicateOfImageId), index('duplicate_reports_state_idx').on(t.state)]);

const interaction = (name: string) =>
  pgTable(name, {
    imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
    userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
  }, (t) => [primaryKey({ columns: [t.imageId, t.userId] }), index(`${name}_user_idx`).on(t.userId)]);

export const imageFaves = interaction('image_faves');
export const imageHides = interaction('image_hides');
export const imageSubscriptions = interaction('image_subscriptions');

export const imageVotes = pgTable('image_votes', {
  imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  userId: integer().notNull().references(() => users.id, { onDelete: 'cascade' }),
  up: boolean().notNull(),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
}, (t) => [primaryKey({ columns: [t.imageId, t.userId] }), index('image_votes_user_idx').on(t.userId)]);

export const imageFeatures = pgTable('image_features', {
  id: serial().primaryKey(),
  imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  userId: integer().references(() => users.id, { onDelete: 'set null' }),
  createdAt: timestamp({ withTimezone: true }).notNull().defaultNow(),
});
