import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { chunkTerms } from '../../hash-chunks.js';
import { imageDocumentRows, tagsOfDocuments, userNamesOfDocuments, type ImageDocumentRow } from '../../../contexts/search/documents/images.js';
import type { DocumentCache } from '../document-cache.js';

/**
 * Image documents exactly as Philomena's `Images.SearchIndex.as_json` builds them (reference §2.2):
 * one set-based query per batch aggregates every relation of the images as id lists, two more
 * fetch the names of the tags and users the batch mentions (contexts/search/documents/images.ts),
 * and the documents are assembled here.
 */

/** `<category>_tag_count` fields by tag category. */
const categoryCountFields: Record<string, string> = {
  error: 'error_tag_count',
  rating: 'rating_tag_count',
  origin: 'origin_tag_count',
  character: 'character_tag_count',
  oc: 'oc_tag_count',
  species: 'species_tag_count',
  'body-type': 'body_type_tag_count',
  'content-fanmade': 'content_fanmade_tag_count',
  'content-official': 'content_official_tag_count',
  spoiler: 'spoiler_tag_count',
};

/** z for the 99.5 % bound ("CI upper 99.5%"), and its square as Philomena writes it. */
const Z = 2.57583;
const Z2 = 6.634900189;

/** Lower bound of the Wilson score interval (reference §5.4); `0` without upvotes. */
export function wilsonScore(upvotes: number, downvotes: number): number {
  if (upvotes <= 0) return 0;
  const n = upvotes + downvotes;
  const p = upvotes / n;
  return (p + Z2 / (2 * n) - Z * Math.sqrt((p * (1 - p) + Z2 / (4 * n)) / n)) / (1 + Z2 / n);
}

export interface TagInfo {
  name: string;
  /** The `<category>_tag_count` field the tag counts towards, if any. */
  countField: string | undefined;
  /** Names of the tags aliased to this one. */
  aliases: string[];
}

/** What a batch's documents need besides its rows: the tags and users they mention. */
export interface ImageLookups {
  tags: Map<number, TagInfo>;
  /** Lowercased names by user id. */
  users: Map<number, string>;
}

const EMPTY: never[] = [];

/** The image lookups kept in a reindex's cache. */
function imageLookupsIn(cache: DocumentCache): ImageLookups {
  let lookups = cache.get('images') as ImageLookups | undefined;
  if (lookups === undefined) {
    lookups = { tags: new Map(), users: new Map() };
    cache.set('images', lookups);
  }
  return lookups;
}

function names(ids: number[] | null, users: Map<number, string>): string[] {
  if (!ids) return [];
  const out: string[] = [];
  for (const id of ids) {
    const name = users.get(id);
    if (name !== undefined) out.push(name);
  }
  return out;
}

export function buildImageDocument(row: ImageDocumentRow, lookups: ImageLookups): IndexDocument {
  const tagIds = row.tag_ids ?? EMPTY;
  const doc: IndexDocument = {
    id: row.id,
    upvotes: row.upvotes_count,
    downvotes: row.downvotes_count,
    score: row.score,
    faves: row.faves_count,
    hides: row.hides_count,
    comment_count: row.comments_count,
    width: row.image_width,
    height: row.image_height,
    pixels: row.image_width * row.image_height,
    size: row.image_size,
    orig_size: row.image_orig_size,
    animated: row.is_animated,
    duration: row.is_animated ? row.image_duration : 0,
    tag_count: tagIds.length,
    aspect_ratio: row.image_aspect_ratio,
    wilson_score: wilsonScore(row.upvotes_count, row.downvotes_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
    first_seen_at: row.first_seen_at,
    ip: row.ip,
    tag_ids: tagIds,
    tags: EMPTY,
    mime_type: row.image_mime_type,
    file_name: row.image_name,
    original_format: row.image_format,
    uploader: null,
    true_uploader: null,
    uploader_id: row.user_id !== null && !row.anonymous ? row.user_id : null,
    true_uploader_id: row.user_id,
    source_url: row.source_urls ?? EMPTY,
    source_count: row.source_urls?.length ?? 0,
    processed: row.processed,
    thumbnails_generated: row.thumbnails_generated,
    fingerprint: row.fingerprint,
    hidden_from_users: row.hidden_from_users,
    anonymous: row.anonymous,
    description: row.description,
    deletion_reason: row.deletion_reason,
    approved: row.approved,
    scratchpad: row.scratchpad,
    duplicate_id: row.duplicate_id,
    orig_sha512_hash: row.image_orig_sha512_hash,
    sha512_hash: row.image_sha512_hash,
    favourited_by_user_ids: row.fave_ids ?? EMPTY,
    hidden_by_user_ids: row.hide_ids ?? EMPTY,
    upvoter_ids: row.up_ids ?? EMPTY,
    downvoter_ids: row.down_ids ?? EMPTY,
    subscriber_ids: row.subscriber_ids ?? EMPTY,
    favourited_by_users: names(row.fave_ids, lookups.users),
    hidden_by_users: names(row.hide_ids, lookups.users),
    upvoters: names(row.up_ids, lookups.users),
    downvoters: names(row.down_ids, lookups.users),
    deleted_by_user_id: row.deleted_by_id,
    deleted_by_user: row.deleted_by_id === null ? null : (lookups.users.get(row.deleted_by_id) ?? null),
    galleries: EMPTY,
    phash: row.phash,
    chash: row.chash,
    phash_chunks: row.phash === null ? EMPTY : chunkTerms(row.phash),
    chash_chunks: row.chash === null ? EMPTY : chunkTerms(row.chash),
    rhash: row.rhashes ?? EMPTY,
    rhash_chunks: row.rhashes === null ? EMPTY : row.rhashes.flatMap(chunkTerms),
    // every count in the literal: added one by one, they cost the object its fast layout
    error_tag_count: 0,
    rating_tag_count: 0,
    origin_tag_count: 0,
    character_tag_count: 0,
    oc_tag_count: 0,
    species_tag_count: 0,
    body_type_tag_count: 0,
    content_fanmade_tag_count: 0,
    content_official_tag_count: 0,
    spoiler_tag_count: 0,
  };

  const tags: string[] = [];
  for (const tagId of tagIds) {
    const tag = lookups.tags.get(tagId);
    if (!tag) continue;
    tags.push(tag.name);
    for (const alias of tag.aliases) tags.push(alias);
    if (tag.countField !== undefined) doc[tag.countField] = (doc[tag.countField] as number) + 1;
  }
  doc.tags = tags;

  if (row.user_id !== null) {
    const name = lookups.users.get(row.user_id) ?? null;
    doc.true_uploader = name;
    doc.uploader = row.anonymous ? null : name;
  }
  if (row.gallery_ids) {
    const positions = row.gallery_positions ?? EMPTY;
    doc.galleries = row.gallery_ids.map((id, k) => ({ id, position: positions[k]! }));
  }
  return doc;
}

/**
 * Fetch the tags and users `rows` mention, in two queries; with `known`, only those not already
 * in it, and the fetched ones are added to it. A reindex passes one `known` for all its batches:
 * a batch of 5,000 images mentions some 40,000 tags, mostly the same popular ones every time, and
 * fetching them again was a large share of its database and parsing time. Changes made meanwhile
 * still reach the new index: the reindex replays what the outbox brought during the load.
 */
async function lookupsFor(db: Database, rows: readonly ImageDocumentRow[], known: ImageLookups = { tags: new Map(), users: new Map() }): Promise<ImageLookups> {
  const tagIds = new Set<number>();
  const userIds = new Set<number>();
  const addUser = (id: number) => {
    if (!known.users.has(id)) userIds.add(id);
  };
  const addUsers = (ids: number[] | null) => {
    if (ids) for (const id of ids) addUser(id);
  };
  for (const row of rows) {
    if (row.tag_ids) for (const id of row.tag_ids) if (!known.tags.has(id)) tagIds.add(id);
    if (row.user_id !== null) addUser(row.user_id);
    if (row.deleted_by_id !== null) addUser(row.deleted_by_id);
    addUsers(row.fave_ids);
    addUsers(row.hide_ids);
    addUsers(row.up_ids);
    addUsers(row.down_ids);
  }
  const [tagRows, userRows] = await Promise.all([tagsOfDocuments(db, [...tagIds]), userNamesOfDocuments(db, [...userIds])]);
  for (const t of tagRows) {
    known.tags.set(t.id, {
      name: t.name,
      countField: t.category === null ? undefined : categoryCountFields[t.category],
      aliases: t.aliases ?? EMPTY,
    });
  }
  for (const u of userRows) known.users.set(u.id, u.name);
  return known;
}

/**
 * Documents of the images with these ids, in id order; ids without a row are absent. `cache`
 * keeps tag and user names between the calls of one reindex (see `lookupsFor`).
 */
export async function loadImageDocuments(db: Database, ids: number[], cache?: DocumentCache): Promise<IndexDocument[]> {
  const rows = await imageDocumentRows(db, ids);
  if (rows.length === 0) return [];
  const lookups = await lookupsFor(db, rows, cache === undefined ? undefined : imageLookupsIn(cache));
  return rows.map((row) => buildImageDocument(row, lookups));
}
