import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { galleryDocumentRows, type GalleryDocumentRow } from '../../../contexts/search/documents/galleries.js';

/**
 * Gallery documents as Philomena's `Galleries.SearchIndex.as_json` builds them (reference §2.5):
 * the title lowercased (the default field is an exact term), the image ids of the gallery in
 * order, the subscriber count, and the creator (lowercased name) unless the gallery is anonymous.
 */

export function buildGalleryDocument(row: GalleryDocumentRow): IndexDocument {
  const anonymous = row.anonymous;
  return {
    id: row.id,
    image_count: row.image_count,
    subscriber_count: row.subscriber_count,
    created_at: row.created_at,
    updated_at: row.updated_at,
    title: row.title,
    true_creator_id: row.creator_id,
    true_creator: row.creator_name,
    creator_id: anonymous ? null : row.creator_id,
    creator: anonymous ? null : row.creator_name,
    image_ids: row.image_ids ?? [],
    description: row.description,
    anonymous,
  };
}

/** Documents of the galleries with these ids, in id order; ids without a row are absent. */
export async function loadGalleryDocuments(db: Database, ids: number[]): Promise<IndexDocument[]> {
  return (await galleryDocumentRows(db, ids)).map(buildGalleryDocument);
}
