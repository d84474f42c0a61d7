/** The comment rows the comments context hands out, derived from the Drizzle schema. */
import type { comments } from '../../db/schema/index.js';

export type CommentRow = typeof comments.$inferSelect;
