import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { fetchDocumentRows, isoTime } from '../document-rows.js';

/**
 * Gallery documents as Philomena's `Galleries.SearchIndex.as_json` builds them (reference §2.5):
 * the title lowercased (the default field is an exact term), the image ids of the gallery in
 * order, the subscriber count, and the creator (lowercased name) unless the gallery is anonymous.
 */

const QUERY = `
with
  gi as (
    select g.gallery_id, array_agg(g.image_id order by g.position, g.image_id) as image_ids
    from gallery_interactions g
    where g.gallery_id = any($1::int[])
    group by g.gallery_id),
  gs as (
    select s.gallery_id, count(*)::int as subscriber_count
    from gallery_subscriptions s
    where s.gallery_id = any($1::int[])
    group by s.gallery_id)
select
  g.id, lower(g.title) as title, g.description, g.image_count, g.creator_id, g.anonymous,
  lower(u.name) as creator_name, coalesce(gs.subscriber_count, 0) as subscriber_count, gi.image_ids,
  ${isoTime('g.created_at')} as created_at, ${isoTime('g.updated_at')} as updated_at
from galleries g
  left join users u on u.id = g.creator_id
  left join gi on gi.gallery_id = g.id
  left join gs on gs.gallery_id = g.id
where g.id = any($1::int[])
order by g.id`;

interface GalleryRow {
  id: number;
  title: string;
  description: string;
  image_count: number;
  creator_id: number;
  anonymous: boolean;
  creator_name: string | null;
  subscriber_count: number;
  image_ids: number[] | null;
  created_at: string;
  updated_at: string;
}

export function buildGalleryDocument(row: GalleryRow): IndexDocument {
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
  return (await fetchDocumentRows<GalleryRow>(db, QUERY, ids)).map(buildGalleryDocument);
}
