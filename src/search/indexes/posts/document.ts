import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { postDocumentRows, type PostDocumentRow } from '../../../contexts/search/documents/posts.js';

/**
 * Forum post documents as Philomena's `Posts.SearchIndex.as_json` builds them (reference §2.4):
 * the topic title as `subject`, the forum's short name and access level, and
 * `hidden_from_users` set when either the post or its topic is hidden.
 */

export function buildPostDocument(row: PostDocumentRow): IndexDocument {
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
  return (await postDocumentRows(db, ids)).map(buildPostDocument);
}
