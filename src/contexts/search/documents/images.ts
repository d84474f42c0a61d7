/**
 * The rows image documents are built of (`images-documents.ts`): one set-based query
 * per batch aggregates every relation of the images as id lists, and two more read the names of
 * the tags and users a batch mentions.
 */
import { sqlClientOf, type Database } from '../../../db/client.js';
import { fetchDocumentRows, idListPer, isoTime } from './rows.js';

/**
 * The images with their relations as id lists. Names are not joined in per row: the tags and
 * users a batch mentions are fetched once each (`TAGS`, `USERS`), which keeps the rows small and
 * the aggregates free of joins.
 */
const QUERY = `
with
  tg as (${idListPer('image_taggings', 'image_id', 'tag_id', 'position, tag_id')}),
  src as (${idListPer('image_sources', 'image_id', 'lower(source)', 'position, source')}),
  fv as (${idListPer('image_faves', 'image_id', 'user_id')}),
  hd as (${idListPer('image_hides', 'image_id', 'user_id')}),
  vt as (
    select v.image_id,
      array_agg(v.user_id order by v.user_id) filter (where v.up) as up_ids,
      array_agg(v.user_id order by v.user_id) filter (where not v.up) as down_ids
    from image_votes v
    where v.image_id = any($1::int[])
    group by v.image_id),
  sb as (${idListPer('image_subscriptions', 'image_id', 'user_id')}),
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
  tg.ids as tag_ids, src.ids as source_urls, fv.ids as fave_ids, hd.ids as hide_ids, vt.up_ids, vt.down_ids,
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
where i.id = any($1::int[])`;

/** Name, category and alias names (the tags aliased to it, by name) of each tag. */
const TAGS = `
select t.id, t.name, t.category,
  (select array_agg(a.name order by a.name) from tags a where a.aliased_tag_id = t.id) as aliases
from tags t
where t.id = any($1::int[])`;

/** Lowercased user names. */
const USERS = `select id, lower(name) as name from users where id = any($1::int[])`;

export interface ImageDocumentRow {
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

/** The rows of the images with these ids, in id order; ids without a row are absent. */
export function imageDocumentRows(db: Database, ids: number[]): Promise<ImageDocumentRow[]> {
  return fetchDocumentRows<ImageDocumentRow>(db, QUERY, ids);
}

export interface DocumentTagRow {
  id: number;
  name: string;
  category: string | null;
  aliases: string[] | null;
}

/** Name, category and alias names of the tags with these ids (none asked: no query). */
export async function tagsOfDocuments(db: Database, ids: number[]): Promise<DocumentTagRow[]> {
  if (ids.length === 0) return [];
  return sqlClientOf(db).unsafe<DocumentTagRow[]>(TAGS, [ids as never], { prepare: true });
}

/** Lowercased names of the users with these ids (none asked: no query). */
export async function userNamesOfDocuments(db: Database, ids: number[]): Promise<{ id: number; name: string }[]> {
  if (ids.length === 0) return [];
  return sqlClientOf(db).unsafe<{ id: number; name: string }[]>(USERS, [ids as never], { prepare: true });
}
