/**
 * The gallery object (spec "Gallery response"). Upstream now sends `creator`/`creator_id`; every
 * client we know reads the legacy `user`/`user_id`. Both pairs are sent.
 */
import type { galleries } from '../../db/schema/index.js';

export type GalleryRow = typeof galleries.$inferSelect;

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
  const name = gallery.anonymous ? null : creatorName;
  const id = gallery.anonymous ? null : gallery.creatorId;
  return {
    id: gallery.id,
    title: gallery.title,
    thumbnail_id: gallery.thumbnailId,
    spoiler_warning: gallery.spoilerWarning,
    description: gallery.description,
    user: name,
    user_id: id,
    creator: name,
    creator_id: id,
  };
}
