/** The image rows the images context hands out, derived from the Drizzle schema. */
import type { imageIntensities, images } from '../../db/schema/index.js';
import type { TagRow } from '../tags/types.js';

export type ImageRow = typeof images.$inferSelect;

/** A tag of an image, as image views need it. */
export type ImageTag = Pick<TagRow, 'id' | 'name' | 'slug' | 'category' | 'namespace' | 'nameInNamespace'>;

/** The average intensity of each quarter of an image (reverse search). */
export type Intensities = Pick<typeof imageIntensities.$inferSelect, 'nw' | 'ne' | 'sw' | 'se'>;
