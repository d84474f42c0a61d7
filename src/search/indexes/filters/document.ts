import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { fetchDocumentRows, isoTime } from '../document-rows.js';

/**
 * Filter documents as Philomena's `Filters.SearchIndex.as_json` builds them (reference §2.7):
 * `public` is true for public and system filters, the name, creator and both complex strings are
 * lowercased, and the counts are the lengths of the tag-id lists.
 */

const QUERY = `
select
  f.id, ${isoTime('f.created_at')} as created_at, f.user_id, lower(u.name) as creator, lower(f.name) as name,
  f.description, f.system, f.public or f.system as public, f.spoilered_tag_ids, f.hidden_tag_ids,
  lower(f.spoilered_complex_str) as spoilered_complex_str, lower(f.hidden_complex_str) as hidden_complex_str
from filters f
  left join users u on u.id = f.user_id
where f.id = any($1::int[])
order by f.id`;

interface FilterRow {
  id: number;
  created_at: string;
  user_id: number | null;
  creator: string | null;
  name: string;
  description: string;
  system: boolean;
  public: boolean;
  spoilered_tag_ids: number[];
  hidden_tag_ids: number[];
  spoilered_complex_str: string;
  hidden_complex_str: string;
}

export function buildFilterDocument(row: FilterRow): IndexDocument {
  return {
    id: row.id,
    created_at: row.created_at,
    user_id: row.user_id,
    creator: row.creator,
    name: row.name,
    description: row.description,
    public: row.public,
    system: row.system,
    spoilered_tag_ids: row.spoilered_tag_ids,
    hidden_tag_ids: row.hidden_tag_ids,
    spoilered_complex_str: row.spoilered_complex_str,
    hidden_complex_str: row.hidden_complex_str,
    spoilered_count: row.spoilered_tag_ids.length,
    hidden_count: row.hidden_tag_ids.length,
  };
}

/** Documents of the filters with these ids, in id order; ids without a row are absent. */
export async function loadFilterDocuments(db: Database, ids: number[]): Promise<IndexDocument[]> {
  return (await fetchDocumentRows<FilterRow>(db, QUERY, ids)).map(buildFilterDocument);
}
