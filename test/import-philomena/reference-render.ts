/**
 * What Philomena's API renders for fixture rows, derived field by field from the source rows by
 * the reference's rules (philomena-db.md §1, §4), written here independently of the code under
 * test. Where Tagwise documents a deliberate difference (src/api/views/image.ts: 0.04 duration
 * for stills, display-ordered tags), the expectation follows it and says so. Hidden images are the
 * reference's stub (image_view.ex, philomena.md §5.4).
 */
import { expect } from 'vitest';


type Row = Record<string, any>;
type Rows = Record<string, Row[]>;

const CATEGORY_ORDER = ['error', 'rating', 'origin', 'character', 'oc', 'species', 'body-type', 'content-fanmade', 'content-official', 'spoiler'];
const BOXES: Array<[string, number, number]> = [
  ['thumb_tiny', 50, 50], ['thumb_small', 150, 150], ['thumb', 250, 250], ['small', 320, 240], ['medium', 800, 600], ['large', 1280, 1024], ['tall', 1024, 4096],
];

export const seconds = (d: Date | null | undefined) => (d == null ? null : `${d.toISOString().slice(0, 19)}Z`);

function wilson(up: number, down: number): number {
  if (up === 0) return 0;
  const n = up + down;
  const z = 2.57583;
  const p = up / n;
  return (p + (z * z) / (2 * n) - z * Math.sqrt((p * (1 - p) + (z * z) / (4 * n)) / n)) / (1 + (z * z) / n);
}

export function displayOrder(tags: Row[]): Row[] {
  const rank = (t: Row) => (t.category == null ? CATEGORY_ORDER.length : CATEGORY_ORDER.indexOf(t.category));
  return [...tags].sort((a, b) => rank(a) - rank(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function expectedImage(rows: Rows, image: Row, cdn: string): Row {
  if (image.hidden_from_users) {
    const merged = image.duplicate_id != null;
    return {
      id: image.id,
      created_at: seconds(image.created_at),
      updated_at: seconds(image.updated_at),
      first_seen_at: seconds(image.first_seen_at),
      deletion_reason: merged ? null : image.deletion_reason,
      duplicate_of: merged ? image.duplicate_id : null,
      hidden_from_users: true,
    };
  }
  const root = `${cdn}/img`;
  const d: Date = image.created_at;
  const date = `${d.getUTCFullYear()}/${d.getUTCMonth() + 1}/${d.getUTCDate()}`;
  const ext = image.image_format === 'svg' ? 'png' : image.image_format;
  const tags = displayOrder(rows.tags!.filter((t) => rows.image_taggings!.some((x) => x.image_id === image.id && x.tag_id === t.id)));
  const fragment = tags.map((t) => t.slug).join('_').replace(/[^a-z0-9_+-]/g, '').slice(0, 151);
  const representations: Row = {};
  for (const [name, w, h] of BOXES) representations[name] = `${root}/${date}/${image.id}/${image.image_width > w || image.image_height > h ? name : 'full'}.${ext}`;
  representations.full = `${root}/view/${date}/${image.id}.${ext}`;
  if (image.image_mime_type === 'image/gif') {
    representations.webm = `${root}/${date}/${image.id}/full.webm`;
    representations.mp4 = `${root}/${date}/${image.id}/full.mp4`;
  }
  const uploader = rows.users!.find((u) => u.id === image.user_id);
  const shown = uploader !== undefined && !image.anonymous;
  const sources = rows.image_sources!.filter((s) => s.image_id === image.id).map((s) => s.source);
  const intensities = rows.image_intensities!.find((i) => i.image_id === image.id);
  return {
    id: image.id,
    created_at: seconds(image.created_at),
    updated_at: seconds(image.updated_at),
    first_seen_at: seconds(image.first_seen_at),
    width: image.image_width,
    height: image.image_height,
    mime_type: image.image_mime_type,
    size: image.image_size,
    orig_size: image.image_orig_size,
    duration: image.is_animated ? image.image_duration : 0.04, // Tagwise: still images say 0.04
    animated: image.is_animated,
    format: image.image_format,
    aspect_ratio: image.image_aspect_ratio,
    name: image.image_name,
    sha512_hash: image.image_sha512_hash,
    orig_sha512_hash: image.image_orig_sha512_hash,
    tags: tags.map((t) => t.name),
    tag_ids: tags.map((t) => t.id),
    tag_count: tags.length,
    uploader: shown ? uploader.name : null,
    uploader_id: shown ? uploader.id : null,
    wilson_score: expect.closeTo(wilson(image.upvotes_count, image.downvotes_count), 9),
    intensities: intensities ? { nw: intensities.nw, ne: intensities.ne, sw: intensities.sw, se: intensities.se } : null,
    score: image.score,
    upvotes: image.upvotes_count,
    downvotes: image.downvotes_count,
    faves: image.faves_count,
    hides: image.hides_count,
    comment_count: image.comments_count,
    description: image.description,
    source_url: sources[0] ?? '',
    source_urls: sources,
    view_url: `${root}/view/${date}/${image.id}__${fragment}.${ext}`,
    representations,
    thumbnails_generated: image.thumbnails_generated,
    processed: image.processed,
    deletion_reason: null,
    duplicate_of: null,
    hidden_from_users: false,
  };
}

export function expectedTag(rows: Rows, tag: Row, cdn: string): Row {
  const slugOf = (id: number) => rows.tags!.find((t) => t.id === id)!.slug;
  return {
    id: tag.id,
    name: tag.name,
    slug: tag.slug,
    description: tag.description,
    short_description: tag.short_description,
    images: tag.images_count,
    spoiler_image_uri: tag.image ? `${cdn}/tag-img/${tag.image}` : null,
    namespace: tag.namespace,
    name_in_namespace: tag.name_in_namespace,
    category: tag.category,
    aliased_tag: tag.aliased_tag_id == null ? null : slugOf(tag.aliased_tag_id),
    aliases: rows.tags!.filter((t) => t.aliased_tag_id === tag.id).map((t) => t.slug).sort(),
    implied_tags: rows.tags_implied_tags!.filter((i) => i.tag_id === tag.id).map((i) => slugOf(i.implied_tag_id)).sort(),
    implied_by_tags: rows.tags_implied_tags!.filter((i) => i.implied_tag_id === tag.id).map((i) => slugOf(i.tag_id)).sort(),
    dnp_entries: rows.dnp_entries!.filter((e) => e.tag_id === tag.id && e.aasm_state === 'listed').map((e) => ({
      id: e.id, dnp_type: e.dnp_type, conditions: e.conditions, reason: e.hide_reason ? null : e.reason, created_at: seconds(e.created_at),
    })),
  };
}

export function expectedProfile(rows: Rows, user: Row, cdn: string): Row {
  return {
    id: user.id,
    name: user.name,
    slug: user.slug,
    role: user.hide_default_role ? 'user' : user.role,
    // Tagwise keeps an unset description as '' (the reference renders the column, possibly null).
    description: user.description ?? '',
    avatar_url: user.avatar ? `${cdn}/avatars/${user.avatar}` : null,
    created_at: seconds(user.created_at),
    comments_count: user.comments_count,
    uploads_count: user.images_count,
    posts_count: user.posts_count,
    topics_count: user.topics_count,
    links: rows.artist_links!.filter((l) => l.user_id === user.id && l.public && l.aasm_state === 'verified').map((l) => ({
      user_id: l.user_id, created_at: seconds(l.created_at), state: l.aasm_state, tag_id: l.tag_id,
    })),
    awards: rows.badge_awards!.filter((a) => a.user_id === user.id).map((a) => {
      const badge = rows.badges!.find((b) => b.id === a.badge_id)!;
      return { image_url: `${cdn}/badge-img/${badge.image}`, title: badge.title, id: badge.id, label: a.label, awarded_on: seconds(a.awarded_on) };
    }),
  };
}

/** A comment as shown, for comments that are shown (not destroyed, on a visible image). */
export function expectedComment(rows: Rows, c: Row): Row {
  const user = rows.users!.find((u) => u.id === c.user_id);
  const anonymous = c.anonymous || !user;
  return {
    id: c.id,
    image_id: c.image_id,
    user_id: anonymous ? null : user.id,
    author: anonymous ? expect.stringMatching(/^Background Pony #[0-9A-F]{4}$/) : user.name,
    body: c.hidden_from_users ? null : c.body,
    created_at: seconds(c.created_at),
    updated_at: seconds(c.updated_at),
    edited_at: c.hidden_from_users ? null : seconds(c.edited_at),
    edit_reason: c.hidden_from_users ? null : c.edit_reason,
  };
}

export function expectedFilter(f: Row): Row {
  return {
    id: f.id, name: f.name, description: f.description, public: f.public, system: f.system, user_count: f.user_count, user_id: f.user_id,
    hidden_tag_ids: f.hidden_tag_ids, spoilered_tag_ids: f.spoilered_tag_ids, hidden_complex: f.hidden_complex_str, spoilered_complex: f.spoilered_complex_str,
  };
}

export function expectedTopic(rows: Rows, t: Row): Row {
  const user = rows.users!.find((u) => u.id === t.user_id);
  const anonymous = t.anonymous || !user;
  return {
    slug: t.slug, title: t.title, post_count: t.post_count, view_count: t.view_count, sticky: t.sticky,
    last_replied_to_at: seconds(t.last_replied_to_at), locked: t.locked_at != null, user_id: anonymous ? null : user.id,
    author: anonymous ? expect.stringMatching(/^Background Pony #[0-9A-F]{4}$/) : user.name,
  };
}

export function expectedPost(rows: Rows, p: Row): Row {
  const user = rows.users!.find((u) => u.id === p.user_id);
  const anonymous = p.anonymous === true || !user;
  return {
    id: p.id, user_id: anonymous ? null : user.id,
    author: anonymous ? expect.stringMatching(/^Background Pony #[0-9A-F]{4}$/) : user.name,
    body: p.hidden_from_users ? null : p.body, created_at: seconds(p.created_at), updated_at: seconds(p.updated_at),
    edited_at: p.hidden_from_users ? null : seconds(p.edited_at), edit_reason: p.hidden_from_users ? null : p.edit_reason,
  };
}
