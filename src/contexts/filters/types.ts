/** The filter rows the filters context hands out, derived from the Drizzle schema. */
import type { filters } from '../../db/schema/index.js';

export type FilterRow = typeof filters.$inferSelect;
