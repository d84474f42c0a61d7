import type { FieldMapping, IndexMapping } from '../../mapping.js';

const keyword: FieldMapping = { type: 'keyword' };
const integer: FieldMapping = { type: 'integer' };
const boolean: FieldMapping = { type: 'boolean' };

/** Philomena's `Filters.SearchIndex.mapping` (reference §2.7). */
export const filtersMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: integer,
    created_at: { type: 'date' },
    user_id: keyword,
    creator: keyword,
    name: keyword,
    spoilered_tag_ids: keyword,
    hidden_tag_ids: keyword,
    spoilered_complex_str: keyword,
    hidden_complex_str: keyword,
    public: boolean,
    system: boolean,
    description: { type: 'text', analyzer: 'snowball' },
    spoilered_count: integer,
    hidden_count: integer,
  },
};
