import { index, integer, pgTable, serial, text } from 'drizzle-orm/pg-core';
import { images } from './images.js';
import { authorColumns, moderationColumns } from './message-columns.js';

export const comments = pgTable('comments', {
  id: serial().primaryKey(),
  imageId: integer().notNull().references(() => images.id, { onDelete: 'cascade' }),
  ...authorColumns(),
  body: text().notNull(),
  ...moderationColumns(),
}, (t) => [index('comments_image_idx').on(t.imageId), index('comments_user_idx').on(t.userId)]);
