import type { FieldMapping, IndexMapping } from '../../mapping.js';

const integer: FieldMapping = { type: 'integer' };
const float: FieldMapping = { type: 'float' };
const date: FieldMapping = { type: 'date' };
const boolean: FieldMapping = { type: 'boolean' };
const keyword: FieldMapping = { type: 'keyword' };
const text: FieldMapping = { type: 'text', analyzer: 'snowball' };

/** Philomena's `Images.SearchIndex.mapping` (reference §2.2). */
export const imagesMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: integer,
    comment_count: integer,
    downvotes: integer,
    faves: integer,
    height: integer,
    pixels: integer,
    score: integer,
    size: integer,
    orig_size: integer,
    source_count: integer,
    tag_count: integer,
    upvotes: integer,
    width: integer,
    hides: integer,
    error_tag_count: integer,
    rating_tag_count: integer,
    origin_tag_count: integer,
    character_tag_count: integer,
    oc_tag_count: integer,
    species_tag_count: integer,
    body_type_tag_count: integer,
    content_fanmade_tag_count: integer,
    content_official_tag_count: integer,
    spoiler_tag_count: integer,

    aspect_ratio: float,
    duration: float,
    wilson_score: float,

    created_at: date,
    updated_at: date,
    first_seen_at: date,

    animated: boolean,
    anonymous: boolean,
    hidden_from_users: boolean,
    processed: boolean,
    thumbnails_generated: boolean,
    approved: boolean,

    deleted_by_user: keyword,
    deleted_by_user_id: keyword,
    downvoter_ids: keyword,
    downvoters: keyword,
    duplicate_id: keyword,
    favourited_by_user_ids: keyword,
    favourited_by_users: keyword,
    file_name: keyword,
    fingerprint: keyword,
    hidden_by_user_ids: keyword,
    hidden_by_users: keyword,
    mime_type: keyword,
    orig_sha512_hash: keyword,
    original_format: keyword,
    sha512_hash: keyword,
    subscriber_ids: keyword,
    source_url: keyword,
    tag_ids: keyword,
    true_uploader: keyword,
    true_uploader_id: keyword,
    uploader: keyword,
    uploader_id: keyword,
    upvoter_ids: keyword,
    upvoters: keyword,
    user_id: keyword,
    tags: keyword,
    // perceptual hashes for reverse search, and their chunks for engines that match terms only
    // (src/search/hash-chunks.ts); not query fields of the search language
    phash: keyword,
    chash: keyword,
    phash_chunks: keyword,
    chash_chunks: keyword,
    rhash: keyword,
    rhash_chunks: keyword,

    ip: { type: 'ip' },

    description: text,
    deletion_reason: text,
    scratchpad: text,

    galleries: {
      type: 'nested',
      properties: { id: integer, position: integer },
    },
  },
};
