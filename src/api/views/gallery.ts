/**
 * The gallery object (spec "Gallery response"). Upstream now sends `creator`/`creator_id`; every
 * client we know reads the legacy `user`/`user_id`. Both pairs are sent.
 */
import type { GalleryRow } from '../../contexts/galleries/types.js';
import type { z } from 'zod';
import type { Gallery } from '../schemas/resources.js';

export type GalleryJson = z.output<typeof Gallery>;

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
