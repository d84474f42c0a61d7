/**
 * Images by id with everything their views need besides the filter: tags in display order,
 * sources, intensities, uploader names. One round trip per batch, whatever the batch size (raw
 * SQL, see `rows-sql.ts`).
 */
import type { Database } from '../../db/client.js';
import { displayOrder } from '../tags/display-order.js';
import { selectImageRows } from './rows-sql.js';
import type { ImageRow, ImageTag, Intensities } from './types.js';

/** An image row with what its views need besides the filter. */
export interface ImageData {
  image: ImageRow;
  tags: ImageTag[];
  sources: string[];
  intensities: Intensities | null;
  uploaderName: string | null;
}

/** Everything about the given images, keyed by id; unknown ids are absent. */
export async function loadImageData(db: Database, ids: readonly number[]): Promise<Map<number, ImageData>> {
  const result = new Map<number, ImageData>();
  if (ids.length === 0) return result;
  for (const { image, tags, sources, intensities, uploaderName } of await selectImageRows(db, [...new Set(ids)])) {
    result.set(image.id, { image, tags: displayOrder(tags), sources, intensities, uploaderName });
  }
  return result;
}
