import type { FieldMapping, IndexMapping } from '../../mapping.js';

const keyword: FieldMapping = { type: 'keyword' };
const boolean: FieldMapping = { type: 'boolean' };
const date: FieldMapping = { type: 'date' };
const integer: FieldMapping = { type: 'integer' };
const text: FieldMapping = { type: 'text', analyzer: 'snowball' };

/** Philomena's `Posts.SearchIndex.mapping` (reference §2.4). */
export const postsMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: integer,
    topic_position: integer,
    body: text,
    subject: text,
    deletion_reason: text,
    ip: { type: 'ip' },
    fingerprint: keyword,
    author_id: keyword,
    author: keyword,
    true_author_id: keyword,
    true_author: keyword,
    forum: keyword,
    forum_id: keyword,
    topic_id: keyword,
    access_level: keyword,
    deleted_by_user: keyword,
    deleted_by_user_id: keyword,
    anonymous: boolean,
    hidden_from_users: boolean,
    destroyed_content: boolean,
    approved: boolean,
    created_at: date,
    updated_at: date,
  },
};
