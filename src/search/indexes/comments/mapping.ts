import type { FieldMapping, IndexMapping } from '../../mapping.js';

const keyword: FieldMapping = { type: 'keyword' };
const boolean: FieldMapping = { type: 'boolean' };
const date: FieldMapping = { type: 'date' };
const text: FieldMapping = { type: 'text', analyzer: 'snowball' };

/** Philomena's `Comments.SearchIndex.mapping` (reference §2.3). */
export const commentsMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'integer' },
    created_at: date,
    updated_at: date,
    ip: { type: 'ip' },
    fingerprint: keyword,
    image_id: keyword,
    author_id: keyword,
    author: keyword,
    true_author_id: keyword,
    true_author: keyword,
    deleted_by_user: keyword,
    deleted_by_user_id: keyword,
    anonymous: boolean,
    hidden_from_users: boolean,
    approved: boolean,
    destroyed_content: boolean,
    body: text,
    deletion_reason: text,
    image: {
      type: 'object',
      properties: {
        tag_ids: keyword,
        tags: keyword,
        hidden_from_users: boolean,
        approved: boolean,
      },
    },
  },
};
