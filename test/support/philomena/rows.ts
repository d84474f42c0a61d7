/**
 * A small Philomena board covering the edge cases an importer meets: anonymous and logged-out
 * content, a deleted image, a merge chain, hidden and destroyed comments and posts, aliases of
 * aliases, unicode names, values with tabs, newlines and backslashes, an empty gallery, private
 * filters, a deleted user, unverified and private artist links, unlisted DNP entries.
 * Column names are the current dialect's (schema.ts renames them for the other shapes).
 */
import type { FixtureRows } from './schema.js';

const t = (day: number, hour = 12) => new Date(Date.UTC(2019, 4, day, hour, 30, 15, 250));

export function fixtureRows(): FixtureRows {
  const user = (id: number, name: string, slug: string, extra: Record<string, unknown> = {}) => ({
    id, name, slug, role: 'user', hide_default_role: false, description: `About ${name}`, avatar: null, deleted_at: null,
    comments_count: id, images_count: id * 2, posts_count: id * 3, topics_count: id % 2, created_at: t(1, id), updated_at: t(2, id), ...extra,
  });
  const tag = (id: number, name: string, slug: string, extra: Record<string, unknown> = {}) => ({
    id, name, slug, description: '', short_description: '', namespace: null, name_in_namespace: name, category: null,
    images_count: 1, image: null, image_format: null, image_mime_type: null, aliased_tag_id: null, created_at: t(1), updated_at: t(1), ...extra,
  });
  const image = (id: number, extra: Record<string, unknown> = {}) => ({
    id, image: `2019/5/${id}/uuid.png`, image_name: `file-${id}.png`, image_width: 2091, image_height: 1500, image_size: 1000 + id,
    image_orig_size: 2000 + id, image_format: 'png', image_mime_type: 'image/png', image_aspect_ratio: 2091 / 1500, image_duration: null,
    is_animated: false, image_sha512_hash: `sha-${id}`, image_orig_sha512_hash: `orig-${id}`, anonymous: false, user_id: 1, score: 0,
    upvotes_count: 0, downvotes_count: 0, faves_count: 0, hides_count: 0, comments_count: 0, description: '', deletion_reason: null,
    duplicate_id: null, hidden_from_users: false, destroyed_content: false, approved: true, processed: true, thumbnails_generated: true,
    duplication_checked: true, first_seen_at: t(id, 10), created_at: t(id), updated_at: t(id, 14), ...extra,
  });
  const comment = (id: number, extra: Record<string, unknown> = {}) => ({
    id, body: `Comment ${id}`, anonymous: false, hidden_from_users: false, user_id: 1, image_id: 1, created_at: t(3, id), updated_at: t(3, id),
    edit_reason: null, edited_at: null, deletion_reason: '', destroyed_content: false, approved: true, ...extra,
  });
  const post = (id: number, topicId: number, position: number, extra: Record<string, unknown> = {}) => ({
    id, edit_reason: null, topic_position: position, hidden_from_users: false, anonymous: false, created_at: t(4, id), updated_at: t(4, id),
    user_id: 1, topic_id: topicId, edited_at: null, deletion_reason: '', destroyed_content: false, body: `Post ${id}`, approved: true, ...extra,
  });
  const topic = (id: number, forumId: number, slug: string, extra: Record<string, unknown> = {}) => ({
    id, title: `Topic ${slug}`, post_count: 1, view_count: 10 * id, sticky: false, last_replied_to_at: t(5, id), locked_at: null,
    deletion_reason: null, slug, anonymous: false, created_at: t(4, id), updated_at: t(5, id), forum_id: forumId, user_id: 1,
    hidden_from_users: false, ...extra,
  });
  const filter = (id: number, extra: Record<string, unknown> = {}) => ({
    id, name: `Filter ${id}`, description: `Describes ${id}`, system: false, public: false, hidden_complex_str: '', spoilered_complex_str: '',
    hidden_tag_ids: [], spoilered_tag_ids: [], user_count: id, created_at: t(6), updated_at: t(6), user_id: null, ...extra,
  });

  return {
    schema_migrations: [{ version: 20260719123611, inserted_at: t(1) }],
    users: [
      user(1, 'Alice', 'alice', { role: 'admin', avatar: '1/alice.png' }),
      user(2, 'Bob the Mod', 'bob+the+mod', { role: 'moderator', hide_default_role: true, description: null }),
      user(3, 'Ünïcødé 名前', 'ünïcødé+名前', { description: 'tab\there, newline\nthere, backslash \\ end' }),
      user(4, 'Gone', 'gone', { deleted_at: t(9) }),
      user(5, 'Zoe', 'zoe'),
    ],
    user_ips: [{ id: 1, user_id: 1, ip: '203.0.113.77', uses: 3, created_at: t(1), updated_at: t(1) }],
    tags: [
      tag(1, 'safe', 'safe', { category: 'rating', images_count: 6, description: 'Safe for work' }),
      tag(2, 'artist:ünï', 'artist-colon-ünï', { namespace: 'artist', name_in_namespace: 'ünï', category: 'origin', short_description: 'An artist' }),
      tag(3, 'twilight sparkle', 'twilight+sparkle', { category: 'character' }),
      tag(4, 'pony', 'pony', { category: 'species' }),
      tag(5, 'oc:fluffy', 'oc-colon-fluffy', { namespace: 'oc', name_in_namespace: 'fluffy', category: 'oc', image: 'fluffy.png' }),
      tag(6, 'oc', 'oc', { category: 'oc' }),
      tag(7, 'tw', 'tw', { aliased_tag_id: 3, images_count: 0 }),
      tag(8, 'twi', 'twi', { aliased_tag_id: 7, images_count: 0 }),
      tag(9, 'cute', 'cute', { description: 'Aww.\tTabbed\\slashed' }),
      tag(10, 'spoiler:s01e01', 'spoiler-colon-s01e01', { namespace: 'spoiler', name_in_namespace: 's01e01', category: 'spoiler' }),
      tag(11, 'tag.with/odd+chars', 'tag-dot-with-fwslash-odd-plus-chars'),
      tag(12, 'explicit', 'explicit', { category: 'rating' }),
      tag(13, 'unused', 'unused', { images_count: 0 }),
    ],
    tags_implied_tags: [{ tag_id: 5, implied_tag_id: 6 }, { tag_id: 3, implied_tag_id: 4 }],
    dnp_entries: [
      { id: 1, requesting_user_id: 1, modifying_user_id: 2, tag_id: 2, aasm_state: 'listed', dnp_type: 'No Edits', hide_reason: false, feedback: 'x', conditions: 'Ask first', reason: 'Because', instructions: 'y', created_at: t(7), updated_at: t(7) },
      { id: 2, requesting_user_id: 1, modifying_user_id: null, tag_id: 2, aasm_state: 'requested', dnp_type: 'Other', hide_reason: false, feedback: 'x', conditions: '', reason: 'Pending', instructions: 'y', created_at: t(7), updated_at: t(7) },
      { id: 3, requesting_user_id: 3, modifying_user_id: 2, tag_id: 5, aasm_state: 'listed', dnp_type: 'With Permission Only', hide_reason: true, feedback: 'x', conditions: 'Only with permission', reason: 'Secret reason', instructions: 'y', created_at: t(8), updated_at: t(8) },
    ],
    artist_links: [
      { id: 1, aasm_state: 'verified', uri: 'https://example.com/alice', public: true, created_at: t(2), updated_at: t(2), user_id: 1, tag_id: 2 },
      { id: 2, aasm_state: 'unverified', uri: 'https://example.com/a2', public: true, created_at: t(2), updated_at: t(2), user_id: 1, tag_id: null },
      { id: 3, aasm_state: 'verified', uri: 'https://example.com/bob', public: false, created_at: t(2), updated_at: t(2), user_id: 2, tag_id: null },
      { id: 4, aasm_state: 'contacted', uri: 'https://example.com/u3', public: true, created_at: t(2), updated_at: t(2), user_id: 3, tag_id: 5 },
    ],
    badges: [
      { id: 1, title: 'Artist', description: 'Draws', image: 'artist.svg', created_at: t(1), updated_at: t(1) },
      { id: 2, title: 'Donor', description: 'Gave', image: 'donor.png', created_at: t(1), updated_at: t(1) },
    ],
    badge_awards: [
      { id: 1, label: 'Great art', awarded_on: t(3), created_at: t(3), updated_at: t(3), user_id: 1, badge_id: 1, awarded_by_id: 2, badge_name: 'Artist' },
      { id: 2, label: '', awarded_on: t(4), created_at: t(4), updated_at: t(4), user_id: 3, badge_id: 2, awarded_by_id: 2, badge_name: 'Donor' },
    ],
    images: [
      image(1, { score: 1, upvotes_count: 2, downvotes_count: 1, faves_count: 2, comments_count: 6, description: 'First\nline\twith tab \\ and ünïcødé' }),
      image(2, { anonymous: true, user_id: 2, image_width: 200, image_height: 100, image_format: 'jpg', image_mime_type: 'image/jpeg', image_aspect_ratio: 2, upvotes_count: 1, score: 1, faves_count: 1 }),
      image(3, { user_id: 3, image_format: 'gif', image_mime_type: 'image/gif', is_animated: true, image_duration: 2.5, image_width: 600, image_height: 400, image_aspect_ratio: 1.5, hides_count: 1 }),
      image(4, { hidden_from_users: true, deletion_reason: 'Rule #1: not allowed', approved: true }),
      image(5, { hidden_from_users: true, duplicate_id: 6 }),
      image(6, { hidden_from_users: true, duplicate_id: 1 }),
      image(7, { image_format: 'svg', image_mime_type: 'image/svg+xml', image_width: 1000, image_height: 1000, image_aspect_ratio: 1, processed: false, thumbnails_generated: false }),
      image(8, { image_format: 'webm', image_mime_type: 'video/webm', is_animated: true, image_duration: 10, image_width: 1920, image_height: 1080, image_aspect_ratio: 1920 / 1080 }),
      image(9, { approved: false }),
      image(10, { user_id: 4 }),
      image(11, { image_format: 'jpeg', image_mime_type: 'image/jpeg', image_width: 40, image_height: 40, image_aspect_ratio: 1 }),
      image(12, { user_id: null, anonymous: false }),
    ],
    image_taggings: [
      [1, 1], [1, 2], [1, 3], [1, 4], [1, 9], [1, 11], [2, 1], [2, 5], [2, 6], [3, 12], [3, 10], [3, 4], [4, 1], [4, 9],
      [5, 1], [6, 1], [7, 1], [7, 3], [8, 1], [9, 1], [10, 1], [10, 2], [12, 1],
    ].map(([image_id, tag_id]) => ({ image_id, tag_id })),
    image_sources: [
      { image_id: 1, source: 'https://example.com/first' },
      { image_id: 1, source: 'http://example.org/ünï?x=1&y=2' },
      { image_id: 3, source: 'https://example.com/gif' },
    ],
    image_intensities: [
      { id: 1, image_id: 1, nw: 10.5, ne: 20.25, sw: 30, se: 40.125 },
      { id: 2, image_id: 3, nw: 1, ne: 2, sw: 3, se: 4 },
    ],
    image_faves: [{ image_id: 1, user_id: 1, created_at: t(5) }, { image_id: 1, user_id: 2, created_at: t(5) }, { image_id: 2, user_id: 3, created_at: t(6) }],
    image_votes: [{ image_id: 1, user_id: 1, created_at: t(5), up: true }, { image_id: 1, user_id: 2, created_at: t(5), up: false }, { image_id: 1, user_id: 3, created_at: t(5), up: true }, { image_id: 2, user_id: 3, created_at: t(6), up: true }],
    image_hides: [{ image_id: 3, user_id: 1, created_at: t(6) }],
    image_features: [{ id: 1, image_id: 1, user_id: 2, created_at: t(10), updated_at: t(10) }, { id: 2, image_id: 3, user_id: 2, created_at: t(11), updated_at: t(11) }],
    comments: [
      comment(1),
      comment(2, { anonymous: true, user_id: 2 }),
      comment(3, { hidden_from_users: true, deletion_reason: 'Rude' }),
      comment(4, { destroyed_content: true, body: '' }),
      comment(5, { image_id: 4 }),
      comment(6, { user_id: null }),
      comment(7, { edited_at: t(3, 20), edit_reason: 'typo', body: 'Edited\twith tab' }),
      comment(8, { approved: false, user_id: 3 }),
    ],
    forums: [
      { id: 1, name: 'General Discussion', short_name: 'dis', description: 'Talk', access_level: 'normal', topic_count: 3, post_count: 6, created_at: t(1), updated_at: t(5) },
      { id: 2, name: 'Staff', short_name: 'staff', description: 'Secret', access_level: 'staff', topic_count: 1, post_count: 1, created_at: t(1), updated_at: t(5) },
    ],
    topics: [
      topic(1, 1, 'hello', { post_count: 3, sticky: true }),
      topic(2, 1, 'anon-topic', { anonymous: true, user_id: 2, locked_at: t(6) }),
      topic(3, 1, 'hidden', { hidden_from_users: true, deletion_reason: 'Spam' }),
      topic(4, 2, 'staff-only'),
    ],
    posts: [
      post(1, 1, 0),
      post(2, 1, 1, { anonymous: true, user_id: 2 }),
      post(3, 1, 2, { hidden_from_users: true, deletion_reason: 'Off topic' }),
      post(4, 2, 0, { anonymous: null, user_id: 3, edited_at: t(6), edit_reason: 'fix' }),
      post(5, 3, 0),
      post(6, 4, 0),
      post(7, 1, 3, { destroyed_content: true, body: '' }),
    ],
    galleries: [
      { id: 1, title: 'Best of', spoiler_warning: '', description: 'Mine', thumbnail_id: 1, user_id: 1, created_at: t(7), updated_at: t(7), image_count: 3, order_position_asc: false, anonymous: false },
      { id: 2, title: 'Empty ünï', spoiler_warning: 'careful', description: '', thumbnail_id: 1, user_id: 2, created_at: t(7), updated_at: t(7), image_count: 0, order_position_asc: false, anonymous: false },
      { id: 3, title: 'Secret curator', spoiler_warning: '', description: '', thumbnail_id: 3, user_id: 3, created_at: t(7), updated_at: t(7), image_count: 1, order_position_asc: false, anonymous: true },
    ],
    gallery_interactions: [
      { id: 1, position: 0, image_id: 3, gallery_id: 1 },
      { id: 2, position: 1, image_id: 1, gallery_id: 1 },
      { id: 3, position: 2, image_id: 2, gallery_id: 1 },
      { id: 4, position: 0, image_id: 3, gallery_id: 3 },
    ],
    filters: [
      filter(1, { name: 'Default', system: true, public: true, hidden_tag_ids: [12], hidden_complex_str: 'explicit || grimdark', spoilered_tag_ids: [10] }),
      filter(2, { public: true, user_id: 1, spoilered_complex_str: 'cute' }),
      filter(3, { user_id: 2 }),
      filter(4, { user_id: 4 }),
    ],
  };
}
