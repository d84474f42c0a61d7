/**
 * The rows comments documents are built of (`comments-documents.ts`): one set-based query
 * per batch of ids, fetched as one JSON array.
 */
import type { Database } from '../../../db/client.js';
import { fetchDocumentRows, isoTime } from './rows.js';

const QUERY = `
with
  c as (select * from comments where id = any($1::int[])),
  tg as (
    select it.image_id,
      array_agg(t.id order by it.position, t.id) as tag_ids,
      array_agg(t.name order by it.position, t.id) as tag_names
    from image_taggings it join tags t on t.id = it.tag_id
    where it.image_id in (select image_id from c)
    group by it.image_id)
select
  c.id, ${isoTime('c.created_at')} as created_at, ${isoTime('c.updated_at')} as updated_at, host(c.ip) as ip,
  c.fingerprint, c.image_id, c.user_id, c.anonymous, c.hidden_from_users, c.approved,
  c.destroyed_content, c.body, c.deletion_reason, c.deleted_by_id,
  lower(au.name) as author_name, lower(dl.name) as deleter_name,
  i.hidden_from_users as image_hidden_from_users, i.approved as image_approved,
  tg.tag_ids, tg.tag_names
from c
  join images i on i.id = c.image_id
  left join users au on au.id = c.user_id
  left join users dl on dl.id = c.deleted_by_id
  left join tg on tg.image_id = c.image_id`;

export interface CommentDocumentRow {
  id: number;
  created_at: string;
  updated_at: string;
  ip: string | null;
  fingerprint: string | null;
  image_id: number;
  user_id: number | null;
  anonymous: boolean;
  hidden_from_users: boolean;
  approved: boolean;
  destroyed_content: boolean;
  body: string;
  deletion_reason: string;
  deleted_by_id: number | null;
  author_name: string | null;
  deleter_name: string | null;
  image_hidden_from_users: boolean;
  image_approved: boolean;
  tag_ids: number[] | null;
  tag_names: string[] | null;
}

/** The rows of the comments with these ids, in id order; ids without a row are absent. */
export function commentDocumentRows(db: Database, ids: number[]): Promise<CommentDocumentRow[]> {
  return fetchDocumentRows<CommentDocumentRow>(db, QUERY, ids);
}
