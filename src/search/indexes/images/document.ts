import type { Database } from '../../../db/client.js';
import type { IndexDocument } from '../../engine.js';

/**
 * Image documents exactly as Philomena's `Images.SearchIndex.as_json` builds them (reference §2.2):
 * one set-based query per batch, every list aggregated in Postgres, the document assembled here.
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
const categoryCountNames = Object.values(categoryCountFields);

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

/** A timestamptz as an ISO 8601 UTC string with milliseconds, like `Date#toISOString`. */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

const QUERY = `
with
  tg as (
    select it.image_id,
      array_agg(t.id order by it.position, t.id) as tag_ids,
      array_agg(t.name order by it.position, t.id) as tag_names,
      array_agg(t.category order by it.position, t.id) as tag_categories
    from image_taggings it join tags t on t.id = it.tag_id
    where it.image_id = any($1::int[])
    group by it.image_id),
  al as (
    select it.image_id,
      array_agg(a.aliased_tag_id order by a.aliased_tag_id, a.name) as alias_of,
      array_agg(a.name order by a.aliased_tag_id, a.name) as alias_names
    from image_taggings it join tags a on a.aliased_tag_id = it.tag_id
    where it.image_id = any($1::int[])
    group by it.image_id),
  src as (
    select s.image_id, array_agg(lower(s.source) order by s.position, s.source) as urls
    from image_sources s
    where s.image_id = any($1::int[])
    group by s.image_id),
  fv as (
    select f.image_id, array_agg(f.user_id order by f.user_id) as ids, array_agg(lower(u.name) order by f.user_id) as names
    from image_faves f join users u on u.id = f.user_id
    where f.image_id = any($1::int[])
    group by f.image_id),
  hd as (
    select h.image_id, array_agg(h.user_id order by h.user_id) as ids, array_agg(lower(u.name) order by h.user_id) as names
    from image_hides h join users u on u.id = h.user_id
    where h.image_id = any($1::int[])
    group by h.image_id),
  vt as (
    select v.image_id,
      array_agg(v.user_id order by v.user_id) filter (where v.up) as up_ids,
      array_agg(lower(u.name) order by v.user_id) filter (where v.up) as up_names,
      array_agg(v.user_id order by v.user_id) filter (where not v.up) as down_ids,
      array_agg(lower(u.name) order by v.user_id) filter (where not v.up) as down_names
    from image_votes v join users u on u.id = v.user_id
    where v.image_id = any($1::int[])
    group by v.image_id),
  sb as (
    select s.image_id, array_agg(s.user_id order by s.user_id) as ids
    from image_subscriptions s
    where s.image_id = any($1::int[])
    group by s.image_id),
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
  ${iso('i.first_seen_at')} as first_seen_at, ${iso('i.created_at')} as created_at,
  ${iso('i.updated_at')} as updated_at,
  lower(up.name) as uploader_name, lower(dl.name) as deleter_name,
  tg.tag_ids, tg.tag_names, tg.tag_categories, al.alias_of, al.alias_names, src.urls as source_urls,
  fv.ids as fave_ids, fv.names as fave_names, hd.ids as hide_ids, hd.names as hide_names,
  vt.up_ids, vt.up_names, vt.down_ids, vt.down_names, sb.ids as subscriber_ids,
  gl.ids as gallery_ids, gl.positions as gallery_positions
from images i
  left join users up on up.id = i.user_id
  left join users dl on dl.id = i.deleted_by_id
  left join tg on tg.image_id = i.id
  left join al on al.image_id = i.id
  left join src on src.image_id = i.id
  left join fv on fv.image_id = i.id
  left join hd on hd.image_id = i.id
  left join vt on vt.image_id = i.id
  left join sb on sb.image_id = i.id
  left join gl on gl.image_id = i.id
where i.id = any($1::int[])
order by i.id`;

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
  uploader_name: string | null;
  deleter_name: string | null;
  tag_ids: number[] | null;
  tag_names: string[] | null;
  tag_categories: (string | null)[] | null;
  alias_of: number[] | null;
  alias_names: string[] | null;
  source_urls: string[] | null;
  fave_ids: number[] | null;
  fave_names: string[] | null;
  hide_ids: number[] | null;
  hide_names: string[] | null;
  up_ids: number[] | null;
  up_names: string[] | null;
  down_ids: number[] | null;
  down_names: string[] | null;
  subscriber_ids: number[] | null;
  gallery_ids: number[] | null;
  gallery_positions: number[] | null;
}

/** Tag names in association order, each followed by the names of the tags aliased to it. */
function tagNamesWithAliases(row: ImageRow): string[] {
  const tagIds = row.tag_ids ?? [];
  const names = row.tag_names ?? [];
  const aliasOf = row.alias_of ?? [];
  if (aliasOf.length === 0) return names.slice();
  const aliasNames = row.alias_names ?? [];
  const aliases = new Map<number, string[]>();
  for (let k = 0; k < aliasOf.length; k++) {
    const target = aliasOf[k]!;
    let list = aliases.get(target);
    if (!list) aliases.set(target, (list = []));
    list.push(aliasNames[k]!);
  }
  const out: string[] = [];
  for (let k = 0; k < tagIds.length; k++) {
    out.push(names[k]!);
    const list = aliases.get(tagIds[k]!);
    if (list) out.push(...list);
  }
  return out;
}

export function buildImageDocument(row: ImageRow): IndexDocument {
  const tagIds = row.tag_ids ?? [];
  const counts: Record<string, number> = {};
  for (const name of categoryCountNames) counts[name] = 0;
  for (const category of row.tag_categories ?? []) {
    const field = category === null ? undefined : categoryCountFields[category];
    if (field !== undefined) counts[field] = (counts[field] ?? 0) + 1;
  }
  const galleryIds = row.gallery_ids ?? [];
  const galleryPositions = row.gallery_positions ?? [];
  const sources = row.source_urls ?? [];
  const hasUploader = row.user_id !== null && row.uploader_name !== null;
  return {
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
    tags: tagNamesWithAliases(row),
    mime_type: row.image_mime_type,
    file_name: row.image_name,
    original_format: row.image_format,
    uploader: hasUploader && !row.anonymous ? row.uploader_name : null,
    true_uploader: hasUploader ? row.uploader_name : null,
    uploader_id: row.user_id !== null && !row.anonymous ? row.user_id : null,
    true_uploader_id: row.user_id,
    source_url: sources,
    source_count: sources.length,
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
    favourited_by_user_ids: row.fave_ids ?? [],
    hidden_by_user_ids: row.hide_ids ?? [],
    upvoter_ids: row.up_ids ?? [],
    downvoter_ids: row.down_ids ?? [],
    subscriber_ids: row.subscriber_ids ?? [],
    favourited_by_users: row.fave_names ?? [],
    hidden_by_users: row.hide_names ?? [],
    upvoters: row.up_names ?? [],
    downvoters: row.down_names ?? [],
    deleted_by_user_id: row.deleted_by_id,
    deleted_by_user: row.deleter_name,
    galleries: galleryIds.map((id, k) => ({ id, position: galleryPositions[k]! })),
    ...counts,
  };
}

/** Documents of the images with these ids, in id order; ids without a row are absent. */
export async function loadImageDocuments(db: Database, ids: number[]): Promise<IndexDocument[]> {
  if (ids.length === 0) return [];
  const rows = await db.$client.unsafe<ImageRow[]>(QUERY, [ids as never], { prepare: true });
  return rows.map(buildImageDocument);
}
