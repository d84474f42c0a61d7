import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { fetchDocumentRows, isoTime } from '../document-rows.js';

/**
 * Forum post documents as Philomena's `Posts.SearchIndex.as_json` builds them (reference §2.4):
 * the topic title as `subject`, the forum's short name and access level, and
 * `hidden_from_users` set when either the post or its topic is hidden.
 */

const QUERY = `
select
  p.id, p.topic_position, p.body, p.deletion_reason, host(p.ip) as ip, p.fingerprint, p.user_id,
  p.anonymous, p.approved, p.hidden_from_users or t.hidden_from_users as hidden_from_users,
  p.destroyed_content, p.deleted_by_id, p.topic_id, t.forum_id, t.title as subject,
  f.short_name as forum, f.access_level,
  ${isoTime('p.created_at')} as created_at, ${isoTime('p.updated_at')} as updated_at,
  lower(au.name) as author_name, lower(dl.name) as deleter_name
from posts p
  join topics t on t.id = p.topic_id
  join forums f on f.id = t.forum_id
  left join users au on au.id = p.user_id
  left join users dl on dl.id = p.deleted_by_id
where p.id = any($1::int[])
order by p.id`;

interface PostRow {
  id: number;
  topic_position: number;
  body: string;
  deletion_reason: string;
  ip: string | null;
  fingerprint: string | null;
  user_id: number | null;
  anonymous: boolean;
  approved: boolean;
  hidden_from_users: boolean;
  destroyed_content: boolean;
  deleted_by_id: number | null;
  topic_id: number;
  forum_id: number;
  subject: string;
  forum: string;
  access_level: string;
  created_at: string;
  updated_at: string;
  author_name: string | null;
  deleter_name: string | null;
}

export function buildPostDocument(row: PostRow): IndexDocument {
  const hasAuthor = row.user_id !== null && row.author_name !== null;
  return {
    id: row.id,
    topic_position: row.topic_position,
    body: row.body,
    subject: row.subject,
    deletion_reason: row.deletion_reason,
    ip: row.ip,
    fingerprint: row.fingerprint,
    author_id: row.user_id !== null && !row.anonymous ? row.user_id : null,
    author: hasAuthor && !row.anonymous ? row.author_name : null,
    true_author_id: row.user_id,
    true_author: hasAuthor ? row.author_name : null,
    forum: row.forum,
    forum_id: row.forum_id,
    topic_id: row.topic_id,
    access_level: row.access_level,
    deleted_by_user_id: row.deleted_by_id,
    deleted_by_user: row.deleter_name,
    anonymous: row.anonymous,
    hidden_from_users: row.hidden_from_users,
    destroyed_content: row.destroyed_content,
    approved: row.approved,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Documents of the posts with these ids, in id order; ids without a row are absent. */
export async function loadPostDocuments(db: Database, ids: number[]): Promise<IndexDocument[]> {
  return (await fetchDocumentRows<PostRow>(db, QUERY, ids)).map(buildPostDocument);
}
