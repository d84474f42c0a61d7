import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { tagDocumentRows, type TagDocumentRow } from '../../../contexts/search/documents/tags.js';

/**
 * Tag documents as Philomena's `Tags.SearchIndex.as_json` builds them (reference §2.6): implied,
 * implying and alias tags as names, the alias target's name, and the name again as
 * `analyzed_name` for the analysed sub-fields.
 */

export function buildTagDocument(row: TagDocumentRow): IndexDocument {
  return {
    id: row.id,
    images: row.images_count,
    slug: row.slug,
    name: row.name,
    name_in_namespace: row.name_in_namespace,
    namespace: row.namespace,
    aliased_tag: row.aliased_tag,
    aliases: row.aliases ?? [],
    implied_tags: row.implied_tags ?? [],
    implied_by_tags: row.implied_by_tags ?? [],
    category: row.category,
    aliased: row.aliased_tag !== null,
    analyzed_name: row.name,
    description: row.description,
    short_description: row.short_description,
  };
}

/** Documents of the tags with these ids, in id order; ids without a row are absent. */
export async function loadTagDocuments(db: Database, ids: number[]): Promise<IndexDocument[]> {
  return (await tagDocumentRows(db, ids)).map(buildTagDocument);
}
