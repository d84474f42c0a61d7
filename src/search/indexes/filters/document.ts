import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { filterDocumentRows, type FilterDocumentRow } from '../../../contexts/search/documents/filters.js';

/**
 * Filter documents as Philomena's `Filters.SearchIndex.as_json` builds them (reference §2.7):
 * `public` is true for public and system filters, the name, creator and both complex strings are
 * lowercased, and the counts are the lengths of the tag-id lists.
 */

export function buildFilterDocument(row: FilterDocumentRow): IndexDocument {
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
  return (await filterDocumentRows(db, ids)).map(buildFilterDocument);
}
