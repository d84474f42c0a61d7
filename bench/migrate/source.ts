/**
 * A Derpibooru-sized Philomena database to import from, generated inside PostgreSQL.
 *
 * The tables are the fixture schema's (test/support/philomena/schema.ts, current dialect, private
 * columns included and filled); the rows come from `generate_series` in a handful of
 * INSERT … SELECT statements, so millions of rows never pass through Node. The shape follows what
 * is known of Derpibooru (philomena-db.md §3): tags per image log-normal with median 16, p90 33,
 * p99 ≈ 58, p99.9 ≈ 95 (σ = ln(33/16)/1.2816); one rating tag per image and the other tags drawn
 * by a Zipf law (s = 1) over a vocabulary ranked like the bulk seeder's, so the most used tags
 * sit on 40–70 % of images; one image in ten hidden (half of those merged into the image before
 * them); uploads dated from 2012-01-02 on. Counters (faves, votes, comments, tag image counts,
 * user upload and comment counts, gallery sizes) agree with the rows they count.
 *
 * Unknown Derpibooru totals (users, comments, faves, votes) are set by `sourceShape` and printed.
 */
import type { Sql } from 'postgres';
import { slugify, splitNamespace } from '../../grammar/index.js';
import { bulkTagNames } from '../../src/seed/bulk.js';
import { RATING_TAGS, categoryFor } from '../../src/contexts/tags/categories.js';
import { philomenaDdl } from '../../test/support/philomena/schema.js';

export interface SourceShape {
  images: number;
  /** Tags used on images, ranked by use (aliases come on top). */
  tags: number;
  users: number;
  /** Means of exponential distributions, per image. */
  favesPerImage: number;
  votesPerImage: number;
  commentsPerImage: number;
  galleries: number;
  /** Mean images per gallery. */
  galleryImages: number;
  topics: number;
  postsPerTopic: number;
}

export function sourceShape(images: number): SourceShape {
  return {
    images,
    tags: Math.min(400_000, Math.max(5_000, Math.round(images / 8))),
    users: Math.max(100, Math.round(images / 8)),
    favesPerImage: 4,
    votesPerImage: 4,
    commentsPerImage: 1.5,
    galleries: Math.max(10, Math.round(images / 100)),
    galleryImages: 30,
    topics: Math.max(5, Math.round(images / 1000)),
    postsPerTopic: 10,
  };
}

/** Tables that get rows, in the order they are filled. */
export const SOURCE_TABLES = [
  'users', 'tags', 'tags_implied_tags', 'images', 'image_taggings', 'image_sources', 'image_faves', 'image_votes',
  'comments', 'galleries', 'gallery_interactions', 'forums', 'topics', 'posts', 'filters', 'image_features',
] as const;

/** A prime that does not divide `n`, to step through 1..n without repeating (j·p mod n differs for j < n). */
function coprimeStep(n: number): number {
  for (const p of [104_729, 15_485_863, 7_919, 1_009]) if (n % p !== 0) return p;
  throw new Error(`no coprime step for ${n}`);
}

/** A random draw from an exponential distribution of mean m, as SQL (whole number ≥ 0). */
const exponential = (mean: number) => `floor(-ln(1 - random()) * ${mean})::int`;

/** Comments, galleries, forums with topics and posts, filters, the featured image, then the counters and sequences. */
async function fillCommunity(sql: Sql, shape: SourceShape, step: (what: string, statement: string, params?: unknown[]) => Promise<void>): Promise<void> {
  const N = shape.images;
  const U = shape.users;
  await step('comments', `
    insert into comments (body, ip, fingerprint, anonymous, hidden_from_users, user_id, image_id, created_at, updated_at, deletion_reason, approved)
    select 'Comment ' || j || ' on >>' || i.id || ': lovely colours.', '10.64.0.0'::inet + (i.id % 1000000), 'c' || md5(j || '/' || i.id),
      (i.id + j) % 20 = 0, (i.id + j) % 100 = 0, case when (i.id + j) % 10 = 0 then null else 1 + ((i.id::int8 * 31 + j * 7) % ${U}) end,
      i.id, i.created_at + j * interval '1 day', i.created_at + j * interval '1 day', case when (i.id + j) % 100 = 0 then 'Spam' else '' end, true
    from images i, generate_series(1, i.comments_count) j`);

  const galleryStep = coprimeStep(N);
  await step('galleries', `
    insert into galleries (id, title, description, spoiler_warning, thumbnail_id, user_id, image_count, created_at, updated_at)
    select g, 'Gallery ' || g, 'A collection.', '', 1 + ((g::int8 * 7919) % ${N}), 1 + (g % ${U}), 1 + least(${N - 1}, ${exponential(shape.galleryImages)}),
      timestamp '2013-01-01' + g * interval '1 hour', timestamp '2025-01-01'
    from generate_series(1, ${shape.galleries}) g`);
  await step('gallery_interactions', `
    insert into gallery_interactions (gallery_id, image_id, position)
    select g.id, 1 + ((g.id::int8 * 7919 + j::int8 * ${galleryStep}) % ${N}), j - 1
    from galleries g, generate_series(1, g.image_count) j`);

  await step('forums, topics, posts', `
    insert into forums (id, name, short_name, description, access_level, created_at, updated_at)
    values (1, 'General Discussion', 'dis', 'Talk about anything.', 'normal', '2012-01-01', '2025-01-01'),
      (2, 'Art Chat', 'art', 'Drawing and tips.', 'normal', '2012-01-01', '2025-01-01'),
      (3, 'Site and Policy', 'meta', 'The site itself.', 'normal', '2012-01-01', '2025-01-01'),
      (4, 'Roleplay', 'rp', 'Stories together.', 'normal', '2012-01-01', '2025-01-01'),
      (5, 'Staff', 'staff', 'Staff only.', 'staff', '2012-01-01', '2025-01-01');
    insert into topics (id, title, slug, forum_id, user_id, post_count, view_count, last_replied_to_at, created_at, updated_at)
    select t, 'Topic number ' || t, 'topic-number-' || t, 1 + t % 5, 1 + (t % ${U}), ${shape.postsPerTopic}, t % 1000,
      timestamp '2013-01-01' + t * interval '2 hours' + interval '1 day', timestamp '2013-01-01' + t * interval '2 hours', timestamp '2025-01-01'
    from generate_series(1, ${shape.topics}) t;
    insert into posts (body, ip, fingerprint, topic_position, user_id, topic_id, created_at, updated_at, approved)
    select 'Post ' || p || ' in topic ' || t.id || '.', '10.128.0.1', 'c-post', p, 1 + ((t.id * 13 + p) % ${U}), t.id,
      t.created_at + p * interval '1 minute', t.created_at + p * interval '1 minute', true
    from topics t, generate_series(0, ${shape.postsPerTopic - 1}) p;
    update forums f set topic_count = c.topics, post_count = c.posts
    from (select forum_id, count(*) as topics, sum(post_count) as posts from topics group by forum_id) c where c.forum_id = f.id`);

  await step('filters, featured image', `
    insert into filters (id, name, description, system, public, hidden_tag_ids, spoilered_tag_ids, created_at, updated_at)
    values (1, 'Default', 'The default filter.', true, true,
        (select array_agg(id order by id) from tags where name in ('explicit', 'grimdark', 'grotesque')),
        (select array_agg(id order by id) from tags where name in ('questionable', 'semi-grimdark')), '2012-01-01', '2025-01-01'),
      (2, 'Everything', 'Hides nothing.', true, true, '{}', '{}', '2012-01-01', '2025-01-01');
    insert into filters (id, name, description, system, public, user_id, hidden_complex_str, created_at, updated_at)
    select 3 + (u - 1) / 50, 'Filter of ' || u, '', false, u % 2 = 0, u, 'score.lt:-10', '2020-01-01', '2025-01-01' from generate_series(1, ${U}, 50) u;
    insert into image_features (image_id, user_id, created_at, updated_at) values (${N - N % 10 - 5 > 0 ? N - N % 10 - 5 : 1}, 1, '2025-01-01', '2025-01-01')`);

  await step('counters (tags, users, galleries)', `
    update tags t set images_count = c.n from (select tag_id, count(*)::int as n from image_taggings group by tag_id) c where c.tag_id = t.id;
    update users u set images_count = c.n from (select user_id, count(*)::int as n from images where user_id is not null group by user_id) c where c.user_id = u.id;
    update users u set comments_count = c.n from (select user_id, count(*)::int as n from comments where user_id is not null group by user_id) c where c.user_id = u.id`);
  // Rows were given their ids: the sequences move past them, as in a live database.
  for (const t of ['users', 'tags', 'images', 'galleries', 'forums', 'topics', 'filters']) {
    await sql.unsafe(`select setval(pg_get_serial_sequence('${t}', 'id'), (select max(id) from ${t}))`);
  }
}

/** Create the schema in an empty database and fill it; returns the rows of every table. */
export async function buildPhilomenaSource(sql: Sql, shape: SourceShape, log: (m: string) => void): Promise<Record<string, number>> {
  const N = shape.images;
  const U = shape.users;
  const step = async (what: string, statement: string, params: unknown[] = []) => {
    const t = performance.now();
    await sql.unsafe(statement, params as never[]);
    log(`  source ${what}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  // The generated database is scratch data: no WAL for it, and no foreign key triggers while
  // loading (the rows are made consistent by construction).
  await sql.unsafe(philomenaDdl('current').replaceAll('create table', 'create unlogged table'));
  await sql.unsafe('set session_replication_role = replica');
  await sql.unsafe('select setseed(0.42)');
  await sql.unsafe(`insert into schema_migrations values (20260719123611, now())`);

  await step('users', `
    insert into users (id, email, encrypted_password, authentication_token, name, slug, role, description, avatar, deleted_at, created_at, updated_at)
    select u, 'member' || u || '@mail.example', 'bcrypt$' || md5(u::text), md5('t' || u), 'Member ' || u, 'Member+' || u,
      case when u <= 3 then 'admin' when u <= 20 then 'moderator' else 'user' end,
      case when u % 7 = 0 then 'I draw ponies. ' || u else '' end, case when u % 5 = 0 then u || '.png' end,
      case when u % 997 = 0 then timestamp '2024-01-01' end,
      timestamp '2011-12-01' + (u::float8 / ${U}) * interval '13 years', timestamp '2025-05-01'
    from generate_series(1, ${U}) u`);

  // Tags: names, slugs and categories computed here, one array each.
  const vocabulary = bulkTagNames(shape.tags, 7);
  const names = [...vocabulary.used, ...vocabulary.aliases.map(([alias]) => alias)];
  const split = names.map((n) => splitNamespace(n));
  await step('tags', `
    insert into tags (id, name, slug, namespace, name_in_namespace, category, description, short_description, created_at, updated_at)
    select ord, name, slug, namespace, nin, category, case when ord <= 50 then 'About ' || name || '.' else '' end, '',
      timestamp '2012-01-01' + ord * interval '1 minute', timestamp '2025-01-01'
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) with ordinality as t(name, slug, namespace, nin, category, ord)`,
  [names, names.map(slugify), split.map((s) => s.namespace), split.map((s) => s.nameInNamespace), names.map((n, i) => categoryFor(n, split[i]!.namespace))]);
  await sql.unsafe(`update tags a set aliased_tag_id = b.id from unnest($1::text[], $2::text[]) as p(alias, target) join tags b on b.name = p.target where a.name = p.alias`,
    [vocabulary.aliases.map(([a]) => a), vocabulary.aliases.map(([, t]) => t)] as never[]);
  await step('implications', `
    insert into tags_implied_tags (tag_id, implied_tag_id)
    select t.id, oc.id from tags t, tags oc where oc.name = 'oc' and t.namespace = 'oc'`);

  const ratingWeights = [60, 15, 8, 8, 4, 3, 2];
  let acc = 0;
  const ratingCase = `case ${ratingWeights.map((w, i) => `when r < ${(acc += w) / 100} then ${i + 1}`).join(' ')} else 1 end`;
  const zipfRanks = shape.tags - RATING_TAGS.length;

  await step('images', `
    insert into images (id, image, image_name, image_width, image_height, image_size, image_orig_size, image_format, image_mime_type,
      image_aspect_ratio, image_duration, is_animated, image_sha512_hash, image_orig_sha512_hash, ip, fingerprint, anonymous, user_id,
      score, upvotes_count, downvotes_count, faves_count, hides_count, comments_count, description, source_url, deletion_reason,
      duplicate_id, hidden_from_users, destroyed_content, approved, processed, thumbnails_generated, duplication_checked,
      first_seen_at, created_at, updated_at)
    select i, to_char(at, 'YYYY/FMMM/FMDD/') || md5(i::text) || '.' || fmt, 'upload-' || i || '.' || fmt, w, h, size, size + 1000,
      fmt, case fmt when 'png' then 'image/png' when 'jpg' then 'image/jpeg' when 'gif' then 'image/gif' when 'svg' then 'image/svg+xml' else 'video/webm' end,
      w::float8 / h, case when fmt in ('gif', 'webm') then 3.5 else 0 end, fmt in ('gif', 'webm'),
      encode(sha512(('s' || i)::bytea), 'hex'), encode(sha512(('o' || i)::bytea), 'hex'),
      '10.0.0.0'::inet + i, 'c' || md5(i::text), anon, uid, up - down, up, down, faves, 0, comments,
      case when i % 3 = 0 then 'Uploaded image number ' || i || '.' else '' end, null,
      case when hidden and i % 20 <> 17 then 'Rule #' || (i % 9 + 1) end, case when hidden and i % 20 = 17 then i - 1 end,
      hidden, false, true, true, true, true, at, at, at + interval '1 day'
    from (
      select i, timestamp '2012-01-02' + (i::float8 / ${N}) * interval '13 years 4 months' as at,
        (array['png', 'jpg', 'gif', 'svg', 'webm'])[case when f < 0.5 then 1 when f < 0.88 then 2 when f < 0.96 then 3 when f < 0.99 then 4 else 5 end] as fmt,
        400 + (random() * 3600)::int as w, 300 + (random() * 3000)::int as h, 50000 + (random() * 4000000)::int as size,
        a < 0.05 as anon, case when a > 0.9 then null else 1 + floor(power(random(), 2) * ${U})::int end as uid,
        least(${U - 1}, ${exponential(shape.votesPerImage * 0.9)}) as up, least(${U - 1}, ${exponential(shape.votesPerImage * 0.1)}) as down,
        least(${U - 1}, ${exponential(shape.favesPerImage)}) as faves, ${exponential(shape.commentsPerImage)} as comments,
        i % 10 = 7 as hidden
      from (select i, random() as f, random() as a from generate_series(1, ${N}) i) g
    ) x`);
  // votes of an image are at most users - 1 rows in all
  await sql.unsafe(`update images set downvotes_count = ${U - 1} - upvotes_count, score = upvotes_count - (${U - 1} - upvotes_count) where upvotes_count + downvotes_count > ${U - 1}`);

  await step('image_taggings (log-normal count, Zipf tags)', `
    insert into image_taggings (image_id, tag_id)
    select g.i, t.tag_id
    from generate_series(1, ${N}) g(i)
    cross join lateral (
      select distinct case when j = 1 then ${ratingCase.replaceAll('r <', 'r0 <')} else ${RATING_TAGS.length} + floor(power(${zipfRanks + 1}, random()))::int end as tag_id
      from (select random() + g.i * 0 as r0) r,
        generate_series(1, greatest(1, least(200, round(exp(ln(16) + 0.5652 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()) + g.i * 0))::int))) j
    ) t`);
  await step('image_sources', `
    insert into image_sources (image_id, source)
    select i, 'https://www.deviantart.com/artist' || (i % 5000) || '/art/' || i from generate_series(1, ${N}) i where i % 2 = 0`);
  const imageStep = coprimeStep(U);
  await step('image_faves', `
    insert into image_faves (image_id, user_id, created_at)
    select i.id, 1 + ((i.id::int8 * 7919 + j::int8 * ${imageStep}) % ${U}), i.created_at + j * interval '1 hour'
    from images i, generate_series(1, i.faves_count) j`);
  await step('image_votes', `
    insert into image_votes (image_id, user_id, created_at, up)
    select i.id, 1 + ((i.id::int8 * 104723 + j::int8 * ${imageStep}) % ${U}), i.created_at + j * interval '1 hour', j <= i.upvotes_count
    from images i, generate_series(1, i.upvotes_count + i.downvotes_count) j`);
  await fillCommunity(sql, shape, step);

  await sql.unsafe('set session_replication_role = origin');
  await step('analyze', 'analyze');

  const counts: Record<string, number> = {};
  for (const table of SOURCE_TABLES) {
    const [row] = await sql.unsafe<Array<{ n: number }>>(`select count(*)::int as n from "${table}"`);
    counts[table] = row!.n;
  }
  return counts;
}
