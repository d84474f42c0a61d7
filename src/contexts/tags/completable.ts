/** Tags as autocomplete indexes them: name, category, image count and alias target. */
import { inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { tags } from '../../db/schema/index.js';

export interface CompletableTag {
  id: number;
  name: string;
  category: string | null;
  images: number;
  aliasOf: number | null;
}

const columns = { id: tags.id, name: tags.name, category: tags.category, images: tags.imagesCount, aliasOf: tags.aliasedTagId };

/** Every tag. */
export function loadCompletableTags(db: Database): Promise<CompletableTag[]> {
  return db.select(columns).from(tags);
}

/** The tags of `ids` that exist. */
export async function loadCompletableTagsById(db: Database, ids: readonly number[]): Promise<CompletableTag[]> {
  if (ids.length === 0) return [];
  return db.select(columns).from(tags).where(inArray(tags.id, [...ids]));
}
