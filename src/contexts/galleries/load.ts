/** Galleries by id, each with its creator's name. */
import { eq, inArray } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { galleries, users } from '../../db/schema/index.js';
import type { GalleryRow } from './types.js';

export interface GalleryData {
  gallery: GalleryRow;
  creatorName: string | null;
}

export async function loadGalleries(db: Database, ids: readonly number[]): Promise<Map<number, GalleryData>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await db
    .select({ gallery: galleries, creatorName: users.name })
    .from(galleries)
    .leftJoin(users, eq(users.id, galleries.creatorId))
    .where(inArray(galleries.id, unique));
  return new Map(rows.map((r) => [r.gallery.id, r]));
}
