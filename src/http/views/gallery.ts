/**
 * The gallery object (spec "Gallery response"). Upstream now sends `creator`/`creator_id`; every
 * client we know reads the legacy `user`/`user_id`. Both pairs are sent.
 */
import type { GalleryRow } from '../../contexts/galleries/types.js';

export interface GalleryJson {
  id: number;
  title: string;
  thumbnail_id: number;
  spoiler_warning: string;
  description: string;
  user: string | null;
  user_id: number | null;
  creator: string | null;
  creator_id: number | null;
}

export function galleryView(gallery: GalleryRow, creatorName: string | null): GalleryJson {
  return {
    id: gallery.id,
    title: gallery.title,
    thumbnail_id: gallery.thumbnailId,
    spoiler_warning: gallery.spoilerWarning,
    description: gallery.description,
    user: creatorName,
    user_id: gallery.creatorId,
    creator: creatorName,
    creator_id: gallery.creatorId,
  };
}
