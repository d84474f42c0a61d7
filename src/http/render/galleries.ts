/** Galleries by id, rendered (the gallery search route calls `renderGalleries` with its hit ids). */
import { loadGalleries } from '../../contexts/galleries/load.js';
import type { RenderDeps } from './deps.js';
import { galleryView, type GalleryJson } from '../../api/views/gallery.js';

/** In the order of `ids`; missing ids are dropped. */
export async function renderGalleries(deps: RenderDeps, ids: readonly number[]): Promise<GalleryJson[]> {
  const byId = await loadGalleries(deps.db, ids);
  return ids.flatMap((id) => {
    const r = byId.get(id);
    return r ? [galleryView(r.gallery, r.creatorName)] : [];
  });
}
