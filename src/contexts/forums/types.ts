/** The forum, topic and post rows the forums context hands out, derived from the Drizzle schema. */
import type { forums, posts, topics } from '../../db/schema/index.js';

export type ForumRow = typeof forums.$inferSelect;
export type TopicRow = typeof topics.$inferSelect;
export type PostRow = typeof posts.$inferSelect;
