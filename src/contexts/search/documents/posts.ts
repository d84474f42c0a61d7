/**
 * The rows posts documents are built of (`posts-documents.ts`): one set-based query
 * per batch of ids, fetched as one JSON array.
 */
import type { Database } from '../../../db/client.js';
import { fetchDocumentRows, isoTime } from './rows.js';

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
where p.id = any($1::int[])`;

export interface PostDocumentRow {
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

/** The rows of the posts with these ids, in id order; ids without a row are absent. */
export function postDocumentRows(db: Database, ids: number[]): Promise<PostDocumentRow[]> {
  return fetchDocumentRows<PostDocumentRow>(db, QUERY, ids);
}
