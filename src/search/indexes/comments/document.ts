import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { fetchDocumentRows, isoTime } from '../document-rows.js';

/**
 * Comment documents as Philomena's `Comments.SearchIndex.as_json` builds them (reference §2.3):
 * author fields hidden when anonymous, and an `image` object with the image's tags (no aliases),
 * tag ids and visibility flags.
 */

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
  left join tg on tg.image_id = c.image_id
order by c.id`;

interface CommentRow {
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

export function buildCommentDocument(row: CommentRow): IndexDocument {
  const hasAuthor = row.user_id !== null && row.author_name !== null;
  return {
    id: row.id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    ip: row.ip,
    fingerprint: row.fingerprint,
    image_id: row.image_id,
    author_id: row.user_id !== null && !row.anonymous ? row.user_id : null,
    author: hasAuthor && !row.anonymous ? row.author_name : null,
    true_author_id: row.user_id,
    true_author: hasAuthor ? row.author_name : null,
    deleted_by_user_id: row.deleted_by_id,
    deleted_by_user: row.deleter_name,
    anonymous: row.anonymous,
    hidden_from_users: row.hidden_from_users,
    approved: row.approved,
    destroyed_content: row.destroyed_content,
    body: row.body,
    deletion_reason: row.deletion_reason,
    image: {
      tag_ids: row.tag_ids ?? [],
      tags: row.tag_names ?? [],
      hidden_from_users: row.image_hidden_from_users,
      approved: row.image_approved,
    },
  };
}

/** Documents of the comments with these ids, in id order; ids without a row are absent. */
export async function loadCommentDocuments(db: Database, ids: number[]): Promise<IndexDocument[]> {
  return (await fetchDocumentRows<CommentRow>(db, QUERY, ids)).map(buildCommentDocument);
}
