/** Galleries by id, rendered (the gallery search route calls `renderGalleries` with its hit ids). */
import { eq, inArray } from 'drizzle-orm';
import { galleries, users } from '../../db/schema/index.js';
import type { AppDeps } from '../context.js';
import { galleryView, type GalleryJson } from '../views/gallery.js';

/** In the order of `ids`; missing ids are dropped. */
export async function renderGalleries(deps: AppDeps, ids: readonly number[]): Promise<GalleryJson[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const rows = await deps.db
    .select({ gallery: galleries, creatorName: users.name })
    .from(galleries)
    .leftJoin(users, eq(users.id, galleries.creatorId))
    .where(inArray(galleries.id, unique));
  const byId = new Map(rows.map((r) => [r.gallery.id, r]));
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [galleryView(r.gallery, r.creatorName)] : [];
  });
}
