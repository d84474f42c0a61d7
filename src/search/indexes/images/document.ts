import { sqlClientOf, type Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';
import { chunkTerms } from '../../hash-chunks.js';
import { fetchDocumentRows, isoTime } from '../document-rows.js';
import type { DocumentCache } from '../document-cache.js';

/**
 * Image documents exactly as Philomena's `Images.SearchIndex.as_json` builds them (reference §2.2):
 * one set-based query per batch aggregates every relation of the images as id lists, two more
 * fetch the names of the tags and users the batch mentions, and the documents are assembled here.
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

/** For each image of the batch, the ids of the users in `table` (who faved, hid, subscribed). */
function userIdsPerImage(table: string): string {
  return `
    select image_id, array_agg(user_id order by user_id) as ids
    from ${table}
    where image_id = any($1::int[])
    group by image_id`;
}

/**
 * The images with their relations as id lists. Names are not joined in per row: the tags and
 * users a batch mentions are fetched once each (`TAGS`, `USERS`), which keeps the rows small and
 * the aggregates free of joins.
 */
const QUERY = `
with
  tg as (
    select it.image_id, array_agg(it.tag_id order by it.position, it.tag_id) as tag_ids
    from image_taggings it
    where it.image_id = any($1::int[])
    group by it.image_id),
  src as (
    select s.image_id, array_agg(lower(s.source) order by s.position, s.source) as urls
    from image_sources s
    where s.image_id = any($1::int[])
    group by s.image_id),
  fv as (${userIdsPerImage('image_faves')}),
  hd as (${userIdsPerImage('image_hides')}),
  vt as (
    select v.image_id,
      array_agg(v.user_id order by v.user_id) filter (where v.up) as up_ids,
      array_agg(v.user_id order by v.user_id) filter (where not v.up) as down_ids
    from image_votes v
    where v.image_id = any($1::int[])
    group by v.image_id),
  sb as (${userIdsPerImage('image_subscriptions')}),
  gl as (
    select g.image_id,
      array_agg(g.gallery_id order by g.gallery_id) as ids,
      array_agg(g.position order by g.gallery_id) as positions
    from gallery_interactions g
    where g.image_id = any($1::int[])
    group by g.image_id)
select
  i.id, i.user_id, i.anonymous, host(i.ip) as ip, i.fingerprint, i.image_name, i.image_width, i.image_height,
  i.image_size, i.image_orig_size, i.image_format, i.image_mime_type, i.image_aspect_ratio,
  i.image_duration, i.is_animated, i.image_sha512_hash, i.image_orig_sha512_hash, i.description,
  i.score, i.upvotes_count, i.downvotes_count, i.faves_count, i.hides_count, i.comments_count,
  i.approved, i.hidden_from_users, i.deletion_reason, i.duplicate_id, i.deleted_by_id, i.processed,
  i.thumbnails_generated, i.scratchpad,
  ${isoTime('i.first_seen_at')} as first_seen_at, ${isoTime('i.created_at')} as created_at,
  ${isoTime('i.updated_at')} as updated_at,
  tg.tag_ids, src.urls as source_urls, fv.ids as fave_ids, hd.ids as hide_ids, vt.up_ids, vt.down_ids,
  sb.ids as subscriber_ids, gl.ids as gallery_ids, gl.positions as gallery_positions,
  fp.phash, fp.chash, fp.rhashes
from images i
  left join image_fingerprints fp on fp.image_id = i.id
  left join tg on tg.image_id = i.id
  left join src on src.image_id = i.id
  left join fv on fv.image_id = i.id
  left join hd on hd.image_id = i.id
  left join vt on vt.image_id = i.id
  left join sb on sb.image_id = i.id
  left join gl on gl.image_id = i.id
where i.id = any($1::int[])
order by i.id`;

/** Name, category and alias names (the tags aliased to it, by name) of each tag. */
const TAGS = `
select t.id, t.name, t.category,
  (select array_agg(a.name order by a.name) from tags a where a.aliased_tag_id = t.id) as aliases
from tags t
where t.id = any($1::int[])`;

/** Lowercased user names. */
const USERS = `select id, lower(name) as name from users where id = any($1::int[])`;

interface ImageRow {
  id: number;
  user_id: number | null;
  anonymous: boolean;
  ip: string | null;
  fingerprint: string | null;
  image_name: string;
  image_width: number;
  image_height: number;
  image_size: number;
  image_orig_size: number;
  image_format: string;
  image_mime_type: string;
  image_aspect_ratio: number;
  image_duration: number;
  is_animated: boolean;
  image_sha512_hash: string;
  image_orig_sha512_hash: string;
  description: string;
  score: number;
  upvotes_count: number;
  downvotes_count: number;
  faves_count: number;
  hides_count: number;
  comments_count: number;
  approved: boolean;
  hidden_from_users: boolean;
  deletion_reason: string | null;
  duplicate_id: number | null;
  deleted_by_id: number | null;
  processed: boolean;
  thumbnails_generated: boolean;
  scratchpad: string | null;
  first_seen_at: string;
  created_at: string;
  updated_at: string;
  tag_ids: number[] | null;
  source_urls: string[] | null;
  fave_ids: number[] | null;
  hide_ids: number[] | null;
  up_ids: number[] | null;
  down_ids: number[] | null;
  subscriber_ids: number[] | null;
  gallery_ids: number[] | null;
  gallery_positions: number[] | null;
  phash: string | null;
  chash: string | null;
  rhashes: string[] | null;
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

export function buildImageDocument(row: ImageRow, lookups: ImageLookups): IndexDocument {
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
async function lookupsFor(db: Database, rows: readonly ImageRow[], known: ImageLookups = { tags: new Map(), users: new Map() }): Promise<ImageLookups> {
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
  const [tagRows, userRows] = await Promise.all([
    tagIds.size === 0
      ? []
      : sqlClientOf(db).unsafe<{ id: number; name: string; category: string | null; aliases: string[] | null }[]>(
          TAGS,
          [[...tagIds] as never],
          { prepare: true },
        ),
    userIds.size === 0
      ? []
      : sqlClientOf(db).unsafe<{ id: number; name: string }[]>(USERS, [[...userIds] as never], { prepare: true }),
  ]);
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
  const rows = await fetchDocumentRows<ImageRow>(db, QUERY, ids);
  if (rows.length === 0) return [];
  const lookups = await lookupsFor(db, rows, cache === undefined ? undefined : imageLookupsIn(cache));
  return rows.map((row) => buildImageDocument(row, lookups));
}
