/**
 * A Philomena-shaped database for tests and benchmarks, written from philomena-db.md: the tables
 * an importer reads, with their private columns, in three shapes:
 *
 * - `current`: philomena-dev's schema after the 2024–2026 clean-ups (renamed counters,
 *   galleries.user_id and anonymous);
 * - `derpibooru`: the older schema Derpibooru's fork still has (old counter names, creator_id,
 *   legacy columns such as tag_ids, user_agent, referrer, *_textile);
 * - `public-dump`: the reduced, renamed export of Derpibooru's public dump (tag_aliases,
 *   tag_implications, upvotes, images.upvotes/downvotes/faves/hides, no moderation columns).
 *
 * Rows are given once in the current dialect's column names (`FixtureRows`) and written into any
 * shape by `fillPhilomenaDatabase`, which renames columns and fills every private column with a
 * marker string that must never reach Tagwise.
 */
import type { Sql } from 'postgres';

export type Dialect = 'current' | 'derpibooru' | 'public-dump';

/** Planted in every private text column; tests search the board's data for it. */
export const PRIVATE_MARKER = 'PRIVATEMARKER7Q';
/** Planted in every private inet column. */
export const PRIVATE_IP = '203.0.113.77';

const derpibooruOnly = (dialect: Dialect, sql: string) => (dialect === 'derpibooru' ? sql : '');

export function philomenaDdl(dialect: Dialect): string {
  if (dialect === 'public-dump') return PUBLIC_DUMP_DDL;
  const d = (sql: string) => derpibooruOnly(dialect, sql);
  const current = dialect === 'current';
  return `
create table schema_migrations (version bigint primary key, inserted_at timestamp);
create table users (
  id serial primary key, email varchar not null, encrypted_password varchar not null, reset_password_token varchar,
  reset_password_sent_at timestamp, remember_created_at timestamp, authentication_token varchar not null,
  confirmed_at timestamp, failed_attempts integer, unlock_token varchar, locked_at timestamp,
  encrypted_otp_secret varchar, encrypted_otp_secret_iv varchar, encrypted_otp_secret_salt varchar,
  consumed_timestep integer, otp_required_for_login boolean, otp_backup_codes varchar[],
  name varchar not null unique, slug varchar not null unique, role varchar not null default 'user',
  hide_default_role boolean not null default false, description varchar, avatar varchar,
  scratchpad varchar, personal_title varchar, deleted_at timestamp, deleted_by_user_id integer,
  watched_images_query_str varchar not null default '', watched_images_exclude_str varchar not null default '',
  recent_filter_ids integer[] not null default '{}', current_filter_id integer,
  ${current ? 'comments_count integer not null default 0, images_count integer not null default 0, posts_count integer not null default 0, topics_count integer not null default 0,'
    : 'comments_posted_count integer not null default 0, uploads_count integer not null default 0, forum_posts_count integer not null default 0, topic_count integer not null default 0, current_sign_in_ip inet, last_sign_in_ip inet, description_textile varchar, unread_notification_ids integer[],'}
  created_at timestamp not null, updated_at timestamp not null);
create table user_ips (id serial primary key, user_id integer, ip inet not null, uses integer, created_at timestamp, updated_at timestamp);
create table tags (
  id serial primary key, name varchar not null unique, slug varchar not null unique, description varchar not null default '',
  short_description varchar default '', namespace varchar, name_in_namespace varchar, category varchar,
  images_count integer not null default 0, image varchar, image_format varchar, image_mime_type varchar,
  aliased_tag_id integer references tags(id) on delete set null, mod_notes varchar, ${d('description_textile varchar,')}
  created_at timestamp not null, updated_at timestamp not null);
create table tags_implied_tags (tag_id integer not null references tags(id) on delete cascade, implied_tag_id integer not null references tags(id) on delete cascade, unique (tag_id, implied_tag_id));
create table dnp_entries (
  id serial primary key, requesting_user_id integer, modifying_user_id integer, tag_id integer not null references tags(id),
  aasm_state varchar not null default 'requested', dnp_type varchar not null, hide_reason boolean not null default false,
  feedback varchar not null, conditions varchar not null, reason varchar not null, instructions varchar not null,
  created_at timestamp not null, updated_at timestamp not null);
create table artist_links (
  id serial primary key, aasm_state varchar not null, uri varchar not null, verification_code varchar not null,
  public boolean not null default true, next_check_at timestamp, contacted_at timestamp, created_at timestamp not null,
  updated_at timestamp not null, user_id integer not null references users(id), verified_by_user_id integer,
  contacted_by_user_id integer, tag_id integer references tags(id));
create table badges (id serial primary key, title varchar not null, description varchar not null, image varchar not null,
  disable_award boolean default false, priority boolean default false, created_at timestamp not null, updated_at timestamp not null);
create table badge_awards (id serial primary key, label varchar not null default '', awarded_on timestamp not null,
  created_at timestamp not null, updated_at timestamp not null, user_id integer not null references users(id),
  badge_id integer not null references badges(id), awarded_by_id integer not null, reason varchar not null default '', badge_name varchar not null default '');
create table images (
  id serial primary key, image varchar, image_name varchar, image_width integer, image_height integer, image_size integer,
  image_orig_size integer ${current ? 'not null' : ''}, image_format varchar, image_mime_type varchar, image_aspect_ratio double precision,
  image_duration double precision, is_animated boolean not null, image_sha512_hash varchar, image_orig_sha512_hash varchar,
  ip inet ${current ? 'not null' : ''}, fingerprint varchar ${current ? 'not null' : ''}, anonymous boolean ${current ? 'not null' : ''} default false,
  user_id integer references users(id) on delete set null, score integer not null default 0,
  upvotes_count integer not null default 0, downvotes_count integer not null default 0, faves_count integer not null default 0,
  hides_count integer not null default 0, comments_count integer not null default 0, description varchar not null default '',
  source_url varchar, deletion_reason varchar, duplicate_id integer references images(id) on delete set null,
  hidden_from_users boolean not null default false, deleted_by_id integer, hidden_image_key varchar,
  destroyed_content boolean not null default false, approved boolean ${current ? 'not null' : ''} default false,
  processed boolean not null default false, thumbnails_generated boolean not null default false,
  duplication_checked boolean not null default false, tag_editing_allowed boolean not null default true,
  first_seen_at timestamp not null, featured_on timestamp, scratchpad varchar,
  ${d("user_agent varchar default '', referrer varchar default '', votes_count integer not null default 0, tag_ids integer[] not null default '{}', tag_list_cache varchar, file_name_cache varchar, description_textile varchar, se_intensity double precision,")}
  created_at timestamp not null, updated_at timestamp not null);
create table image_taggings (image_id bigint not null references images(id) on delete cascade, tag_id bigint not null references tags(id) on delete cascade, unique (image_id, tag_id));
create table image_sources (image_id bigint not null references images(id), source varchar(255) not null, unique (image_id, source));
create table image_intensities (id bigserial primary key, image_id bigint not null unique references images(id), nw double precision not null, ne double precision not null, sw double precision not null, se double precision not null);
create table image_faves (image_id bigint not null references images(id) on delete cascade, user_id bigint not null references users(id), created_at timestamp not null, unique (image_id, user_id));
create table image_votes (image_id bigint not null references images(id) on delete cascade, user_id bigint not null references users(id), created_at timestamp not null, up boolean not null, unique (image_id, user_id));
create table image_hides (image_id bigint not null references images(id) on delete cascade, user_id bigint not null references users(id), created_at timestamp not null, unique (image_id, user_id));
create table image_features (id bigserial primary key, image_id bigint not null references images(id) on delete cascade, user_id bigint not null references users(id), created_at timestamp not null, updated_at timestamp not null);
create table comments (
  id serial primary key, body varchar not null, ip inet not null, fingerprint varchar not null, anonymous boolean not null default false,
  hidden_from_users boolean not null default false, user_id integer references users(id) on delete set null, deleted_by_id integer,
  image_id integer not null references images(id) on delete cascade, created_at timestamp not null, updated_at timestamp not null,
  edit_reason varchar, edited_at timestamp, deletion_reason varchar not null default '', destroyed_content boolean not null default false,
  approved boolean not null default false ${d(", user_agent varchar default '', referrer varchar default '', name_at_post_time varchar, body_textile varchar")});
create table forums (id serial primary key, name varchar not null, short_name varchar not null unique, description varchar not null,
  access_level varchar not null default 'normal', topic_count integer default 0, post_count integer default 0,
  created_at timestamp not null, updated_at timestamp not null, last_post_id integer, last_topic_id integer);
create table topics (id serial primary key, title varchar not null, post_count integer not null default 0, view_count integer default 0,
  sticky boolean default false, last_replied_to_at timestamp, locked_at timestamp, deletion_reason varchar, lock_reason varchar,
  slug varchar not null, anonymous boolean not null default false, created_at timestamp not null, updated_at timestamp not null,
  forum_id integer not null references forums(id), user_id integer references users(id) on delete set null, deleted_by_id integer,
  locked_by_id integer, last_post_id integer, hidden_from_users boolean not null default false, unique (forum_id, slug));
create table posts (id serial primary key, edit_reason varchar, ip inet not null, fingerprint varchar not null, topic_position integer not null,
  hidden_from_users boolean not null default false, anonymous boolean default false, created_at timestamp not null, updated_at timestamp not null,
  user_id integer references users(id) on delete set null, topic_id integer not null references topics(id), deleted_by_id integer,
  edited_at timestamp, deletion_reason varchar not null default '', destroyed_content boolean not null default false, body varchar not null,
  approved boolean not null default false ${d(", user_agent varchar default '', referrer varchar default '', name_at_post_time varchar")});
create table galleries (id serial primary key, title varchar not null, spoiler_warning varchar not null default '', description varchar not null default '',
  thumbnail_id integer not null references images(id), ${current ? 'user_id' : 'creator_id'} integer not null references users(id),
  created_at timestamp not null, updated_at timestamp not null, image_count integer not null default 0, order_position_asc boolean not null default false
  ${current ? ', anonymous boolean not null default false' : ''});
create table gallery_interactions (id serial primary key, position integer not null, image_id integer not null references images(id), gallery_id integer not null references galleries(id) on delete cascade, unique (gallery_id, image_id));
create table filters (id serial primary key, name varchar not null, description varchar not null, system boolean, public boolean,
  hidden_complex_str varchar not null default '', spoilered_complex_str varchar not null default '', hidden_tag_ids integer[] not null default '{}',
  spoilered_tag_ids integer[] not null default '{}', user_count integer default 0, created_at timestamp not null, updated_at timestamp not null,
  user_id integer references users(id));
`;
}

/** The public dump's reduced shape (philomena-db.md §2; the column lists it could not confirm are guesses). */
const PUBLIC_DUMP_DDL = `
create table users (id bigint primary key, name varchar not null);
create table tags (id bigint primary key, images integer not null default 0, name varchar not null, slug varchar not null, category varchar, description varchar, short_description varchar);
create table tag_aliases (tag_id bigint not null, target_tag_id bigint not null);
create table tag_implications (tag_id bigint not null, target_tag_id bigint not null);
create table images (id bigint primary key, created_at timestamp not null, updated_at timestamp not null, first_seen_at timestamp,
  image_width integer, image_height integer, image_size integer, comment_count integer, score integer, faves integer,
  upvotes integer, downvotes integer, hides integer, image_aspect_ratio double precision, user_id bigint,
  image_mime_type varchar, image_format varchar, image_name varchar, version_path varchar, image_sha512_hash varchar,
  image_orig_sha512_hash varchar, description varchar, is_animated boolean, image_duration double precision);
create table image_taggings (image_id bigint not null, tag_id bigint not null);
create table image_sources (image_id bigint not null, source varchar not null);
create table image_faves (image_id bigint not null, user_id bigint not null, created_at timestamp);
create table upvotes (image_id bigint not null, user_id bigint not null, created_at timestamp);
create table comments (id bigint primary key, image_id bigint not null, user_id bigint, body varchar not null, created_at timestamp not null, updated_at timestamp not null);
`;

/** Rows by table in the current dialect's column names. */
export type FixtureRows = Record<string, Array<Record<string, unknown>>>;

/** Current column name of a column in another shape. */
const RENAMES: Record<Dialect, Record<string, Record<string, string>>> = {
  current: {},
  derpibooru: {
    users: { comments_posted_count: 'comments_count', uploads_count: 'images_count', forum_posts_count: 'posts_count', topic_count: 'topics_count' },
    galleries: { creator_id: 'user_id' },
  },
  'public-dump': {
    images: { upvotes: 'upvotes_count', downvotes: 'downvotes_count', faves: 'faves_count', hides: 'hides_count', comment_count: 'comments_count' },
    tags: { images: 'images_count' },
    tag_implications: { target_tag_id: 'implied_tag_id' },
  },
};

/** Tables of the public dump made from other fixture tables. */
function dumpTable(table: string, rows: FixtureRows): Array<Record<string, unknown>> | undefined {
  switch (table) {
    case 'tag_aliases':
      return (rows.tags ?? []).filter((t) => t.aliased_tag_id != null).map((t) => ({ tag_id: t.id, target_tag_id: t.aliased_tag_id }));
    case 'tag_implications':
      return rows.tags_implied_tags;
    case 'upvotes':
      return (rows.image_votes ?? []).filter((v) => v.up === true);
    case 'images':
      // The public dump holds what the public sees: no deleted or merged images.
      return (rows.images ?? []).filter((i) => i.hidden_from_users !== true);
    case 'comments':
      // Anonymous comments lose their author; destroyed and hidden ones are not published.
      return (rows.comments ?? [])
        .filter((c) => c.destroyed_content !== true && c.hidden_from_users !== true && (rows.images ?? []).some((i) => i.id === c.image_id && i.hidden_from_users !== true))
        .map((c) => ({ ...c, user_id: c.anonymous ? null : c.user_id }));
    default:
      return undefined;
  }
}

/** Columns that are private (philomena-db.md §1.12 and the ip/fingerprint/secret columns of every table). */
export const PRIVATE_COLUMNS: Record<string, string[]> = {
  users: ['email', 'encrypted_password', 'reset_password_token', 'authentication_token', 'unlock_token', 'encrypted_otp_secret', 'encrypted_otp_secret_iv', 'encrypted_otp_secret_salt', 'otp_backup_codes', 'scratchpad', 'watched_images_query_str', 'watched_images_exclude_str', 'current_sign_in_ip', 'last_sign_in_ip'],
  user_ips: ['ip'],
  tags: ['mod_notes'],
  dnp_entries: ['feedback', 'instructions'],
  artist_links: ['verification_code'],
  badge_awards: ['reason'],
  images: ['ip', 'fingerprint', 'hidden_image_key', 'scratchpad', 'user_agent', 'referrer'],
  comments: ['ip', 'fingerprint', 'user_agent', 'referrer'],
  posts: ['ip', 'fingerprint', 'user_agent', 'referrer'],
};

/** Create the tables of a shape in an empty database. */
export async function createPhilomenaSchema(sql: Sql, dialect: Dialect): Promise<void> {
  await sql.unsafe(philomenaDdl(dialect));
}

function privateValue(type: string): unknown {
  if (type === 'inet') return PRIVATE_IP;
  if (type === 'ARRAY') return [PRIVATE_MARKER];
  return PRIVATE_MARKER;
}

/** Write fixture rows into a database of the given shape (tables created by createPhilomenaSchema). */
export async function fillPhilomenaDatabase(sql: Sql, dialect: Dialect, rows: FixtureRows): Promise<void> {
  const columns = await sql<Array<{ table_name: string; column_name: string; data_type: string }>>`
    select table_name, column_name, data_type from information_schema.columns where table_schema = current_schema() order by ordinal_position`;
  const byTable = new Map<string, Array<{ name: string; type: string }>>();
  for (const c of columns) {
    const list = byTable.get(c.table_name) ?? [];
    list.push({ name: c.column_name, type: c.data_type });
    byTable.set(c.table_name, list);
  }
  // Parents before children.
  const order = ['schema_migrations', 'users', 'user_ips', 'tags', 'tag_aliases', 'tags_implied_tags', 'tag_implications', 'dnp_entries', 'artist_links', 'badges', 'badge_awards', 'images', 'image_taggings', 'image_sources', 'image_intensities', 'image_faves', 'image_votes', 'upvotes', 'image_hides', 'image_features', 'comments', 'forums', 'topics', 'posts', 'galleries', 'gallery_interactions', 'filters'];
  for (const table of order) {
    const cols = byTable.get(table);
    if (!cols) continue;
    const source = (dialect === 'public-dump' ? dumpTable(table, rows) : undefined) ?? rows[table] ?? [];
    const renames = RENAMES[dialect][table] ?? {};
    const privates = new Set(PRIVATE_COLUMNS[table] ?? []);
    const mapped = source.map((row) => {
      const out: Record<string, unknown> = {};
      for (const c of cols) {
        const from = renames[c.name] ?? c.name;
        if (privates.has(c.name)) out[c.name] = privateValue(c.type);
        else if (row[from] !== undefined) out[c.name] = row[from];
      }
      return out;
    });
    // Ids go in as given; some rows name ids of rows that come later in the same table.
    for (let i = 0; i < mapped.length; i += 500) {
      const chunk = mapped.slice(i, i + 500);
      const names = [...new Set(chunk.flatMap((r) => Object.keys(r)))];
      await sql.unsafe(`alter table ${table} disable trigger all`);
      await sql`insert into ${sql(table)} ${sql(chunk.map((r) => Object.fromEntries(names.map((n) => [n, r[n] ?? null]))) as never, ...names)}`;
      await sql.unsafe(`alter table ${table} enable trigger all`);
    }
  }
  for (const [table, cols] of byTable) {
    if (cols.some((c) => c.name === 'id')) {
      await sql.unsafe(`select setval(pg_get_serial_sequence('${table}', 'id'), coalesce((select max(id) from ${table}), 0) + 1, false) where pg_get_serial_sequence('${table}', 'id') is not null`);
    }
  }
}
