/**
 * The rows tags documents are built of (`tags-documents.ts`): one set-based query
 * per batch of ids, fetched as one JSON array.
 */
import type { Database } from '../../../db/client.js';
import { fetchDocumentRows } from './rows.js';

const QUERY = `
with
  imp as (
    select ti.tag_id, array_agg(t.name order by t.name) as names
    from tag_implications ti join tags t on t.id = ti.implied_tag_id
    where ti.tag_id = any($1::int[])
    group by ti.tag_id),
  impby as (
    select ti.implied_tag_id as tag_id, array_agg(t.name order by t.name) as names
    from tag_implications ti join tags t on t.id = ti.tag_id
    where ti.implied_tag_id = any($1::int[])
    group by ti.implied_tag_id),
  al as (
    select a.aliased_tag_id as tag_id, array_agg(a.name order by a.name) as names
    from tags a
    where a.aliased_tag_id = any($1::int[])
    group by a.aliased_tag_id)
select
  t.id, t.name, t.slug, t.namespace, t.name_in_namespace, t.category, t.description,
  t.short_description, t.images_count, target.name as aliased_tag,
  imp.names as implied_tags, impby.names as implied_by_tags, al.names as aliases
from tags t
  left join tags target on target.id = t.aliased_tag_id
  left join imp on imp.tag_id = t.id
  left join impby on impby.tag_id = t.id
  left join al on al.tag_id = t.id
where t.id = any($1::int[])`;

export interface TagDocumentRow {
  id: number;
  name: string;
  slug: string;
  namespace: string | null;
  name_in_namespace: string;
  category: string | null;
  description: string;
  short_description: string;
  images_count: number;
  aliased_tag: string | null;
  implied_tags: string[] | null;
  implied_by_tags: string[] | null;
  aliases: string[] | null;
}

/** The rows of the tags with these ids, in id order; ids without a row are absent. */
export function tagDocumentRows(db: Database, ids: number[]): Promise<TagDocumentRow[]> {
  return fetchDocumentRows<TagDocumentRow>(db, QUERY, ids);
}
