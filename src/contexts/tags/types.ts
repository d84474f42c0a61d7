/** The tag rows the tags context hands out, derived from the Drizzle schema. */
import type { dnpEntries, tags } from '../../db/schema/index.js';

export type TagRow = typeof tags.$inferSelect;
export type DnpEntryRow = typeof dnpEntries.$inferSelect;
