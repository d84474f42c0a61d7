/** The gallery rows the galleries context hands out, derived from the Drizzle schema. */
import type { galleries } from '../../db/schema/index.js';

export type GalleryRow = typeof galleries.$inferSelect;
