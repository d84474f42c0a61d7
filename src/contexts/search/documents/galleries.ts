/**
 * The rows galleries documents are built of (`galleries-documents.ts`): one set-based query
 * per batch of ids, fetched as one JSON array.
 */
import type { Database } from '../../../db/client.js';
import { fetchDocumentRows, idListPer, isoTime } from './rows.js';

const QUERY = `
with
  gi as (${idListPer('gallery_interactions', 'gallery_id', 'image_id', 'position, image_id')}),
  gs as (
    select s.gallery_id, count(*)::int as subscriber_count
    from gallery_subscriptions s
    where s.gallery_id = any($1::int[])
    group by s.gallery_id)
select
  g.id, lower(g.title) as title, g.description, g.image_count, g.creator_id, g.anonymous,
  lower(u.name) as creator_name, coalesce(gs.subscriber_count, 0) as subscriber_count, gi.ids as image_ids,
  ${isoTime('g.created_at')} as created_at, ${isoTime('g.updated_at')} as updated_at
from galleries g
  left join users u on u.id = g.creator_id
  left join gi on gi.gallery_id = g.id
  left join gs on gs.gallery_id = g.id
where g.id = any($1::int[])`;

export interface GalleryDocumentRow {
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

/** The rows of the galleries with these ids, in id order; ids without a row are absent. */
export function galleryDocumentRows(db: Database, ids: number[]): Promise<GalleryDocumentRow[]> {
  return fetchDocumentRows<GalleryDocumentRow>(db, QUERY, ids);
}
