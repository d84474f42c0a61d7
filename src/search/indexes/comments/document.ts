import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { commentDocumentRows, type CommentDocumentRow } from '../../../contexts/search/documents/comments.js';

/**
 * Comment documents as Philomena's `Comments.SearchIndex.as_json` builds them (reference §2.3):
 * author fields hidden when anonymous, and an `image` object with the image's tags (no aliases),
 * tag ids and visibility flags.
 */

export function buildCommentDocument(row: CommentDocumentRow): IndexDocument {
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
  return (await commentDocumentRows(db, ids)).map(buildCommentDocument);
}
