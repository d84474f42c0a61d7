import type { FieldMapping, IndexMapping } from '../../mapping.js';

const keyword: FieldMapping = { type: 'keyword' };
const integer: FieldMapping = { type: 'integer' };
const date: FieldMapping = { type: 'date' };

/** Philomena's `Galleries.SearchIndex.mapping` (reference §2.5). */
export const galleriesMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: integer,
    image_count: integer,
    subscriber_count: integer,
    created_at: date,
    updated_at: date,
    title: keyword,
    true_creator_id: keyword,
    true_creator: keyword,
    creator_id: keyword,
    creator: keyword,
    image_ids: keyword,
    description: { type: 'text', analyzer: 'snowball' },
    anonymous: { type: 'boolean' },
  },
};
