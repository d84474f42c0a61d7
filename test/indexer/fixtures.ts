import type { Database } from '../../src/db/client.js';

/**
 * A board of `images` images in a few set-based statements, without outbox rows (as a bulk
 * loader does): `users` users, `tags` tags (every tenth a character, a few aliases), and per
 * image 10 tags, 3 faves, 3 votes, 1 source, plus a comment on every fifth image.
 */
export async function bulkBoard(db: Database, opts: { images: number; users?: number; tags?: number; prefix?: string }): Promise<void> {
  const nUsers = opts.users ?? 200;
  const nTags = opts.tags ?? 500;
  const p = opts.prefix ?? 'bulk';
  await db.$client.begin(async (tx) => {
    await tx.unsafe(`set local tagwise.skip_outbox = on`);
    await tx.unsafe(
      `insert into users (name, slug) select '${p} User ' || g, '${p}-user-' || g from generate_series(1, $1) g`,
      [nUsers],
    );
    await tx.unsafe(
      `insert into tags (name, slug, name_in_namespace, category)
       select '${p} tag ' || g, '${p}-tag-' || g, '${p} tag ' || g, case when g % 10 = 0 then 'character' end
       from generate_series(1, $1) g`,
      [nTags],
    );
    await tx.unsafe(
      `insert into tags (name, slug, name_in_namespace, aliased_tag_id)
       select '${p} alias ' || t.id, '${p}-alias-' || t.id, '${p} alias ' || t.id, t.id
       from tags t where t.name like '${p} tag %' and t.id % 25 = 0`,
    );
    await tx.unsafe(
      `insert into images (user_id, anonymous, ip, image_format, image_mime_type, image_width, image_height,
         image_size, image_orig_size, image_aspect_ratio, score, upvotes_count, downvotes_count, faves_count,
         description, image_sha512_hash, image_orig_sha512_hash, created_at, first_seen_at, updated_at)
       select u.base + (g % $2), g % 7 = 0, ('10.0.' || (g % 250) || '.' || (g % 200))::inet, 'png', 'image/png',
         100 + g % 900, 100 + g % 700, 1000 + g, 1000 + g, (100 + g % 900)::float8 / (100 + g % 700), 3, 3, 0, 3,
         'description of image ' || g, md5(g::text), md5(g::text),
         timestamptz '2024-01-01' + g * interval '1 minute', timestamptz '2024-01-01' + g * interval '1 minute',
         timestamptz '2024-01-01' + g * interval '1 minute'
       from generate_series(1, $1) g, (select min(id) as base from users where name like '${p} User %') u`,
      [opts.images, nUsers],
    );
    await tx.unsafe(
      `with i as (select id from images where id not in (select image_id from image_taggings)),
            tb as (select min(id) as base from tags where name like '${p} tag %')
       insert into image_taggings (image_id, tag_id, position)
       select i.id, tb.base + ((i.id * 7 + k * 13) % $1), k from i, tb, generate_series(0, 9) k`,
      [nTags],
    );
    await tx.unsafe(
      `with i as (select id from images where id not in (select image_id from image_faves)),
            ub as (select min(id) as base from users where name like '${p} User %')
       insert into image_faves (image_id, user_id) select i.id, ub.base + ((i.id + k * 17) % $1)
       from i, ub, generate_series(0, 2) k`,
      [nUsers],
    );
    await tx.unsafe(
      `with i as (select id from images where id not in (select image_id from image_votes)),
            ub as (select min(id) as base from users where name like '${p} User %')
       insert into image_votes (image_id, user_id, up) select i.id, ub.base + ((i.id + k * 31) % $1), true
       from i, ub, generate_series(0, 2) k`,
      [nUsers],
    );
    await tx.unsafe(
      `insert into image_sources (image_id, source)
       select id, 'https://Example.com/' || id from images where id not in (select image_id from image_sources)`,
    );
    await tx.unsafe(
      `insert into comments (image_id, user_id, body)
       select id, user_id, 'comment on ' || id from images where id % 5 = 0 and id not in (select image_id from comments)`,
    );
  });
}
