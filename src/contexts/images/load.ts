/**
 * Images by id with everything their views need besides the filter: tags in display order,
 * sources, intensities, uploader names. Two round trips per batch, whatever the batch size (raw
 * SQL, see `rows-sql.ts`).
 */
import type { Database } from '../../db/client.js';
import { displayOrder } from '../tags/display-order.js';
import { selectImageRows, selectTags } from './rows-sql.js';
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
  const rows = await selectImageRows(db, [...new Set(ids)]);
  const tags = await selectTags(db, [...new Set(rows.flatMap((r) => r.tagIds))]);
  for (const { image, tagIds, sources, intensities, uploaderName } of rows) {
    result.set(image.id, { image, tags: displayOrder(tagsOf(tagIds, tags)), sources, intensities, uploaderName });
  }
  return result;
}

/** The tags of the ids, in their order; an id whose tag has just been deleted is skipped. */
function tagsOf(ids: readonly number[], tags: ReadonlyMap<number, ImageTag>): ImageTag[] {
  const out: ImageTag[] = [];
  for (const id of ids) {
    const tag = tags.get(id);
    if (tag !== undefined) out.push(tag);
  }
  return out;
}
