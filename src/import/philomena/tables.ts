/**
 * What is read from each Philomena table and how it becomes a Tagwise row.
 *
 * Only the columns named here are ever selected (from a live database) or kept (from a dump); the
 * private columns of philomena-db.md §1.12 and the ip/fingerprint/secret columns of every table
 * are simply never named. Each field lists the source column names it may have, current dialect
 * first, then Derpibooru's older names, then the public dump's renames; the first one the source
 * has is used, and a field the source lacks gets the API's default.
 */
import { slugify, splitNamespace } from '../../../grammar/index.js';
import { dnpTypes, imageFormats, imageMimeTypes, linkStates, roles, tagCategories, accessLevels } from '../../db/schema/index.js';

/** A decoded source row by field name: undefined when the source has no such column. */
export type SourceRow = Record<string, string | null | undefined>;

/** A target row in `columns` order, or the reason the row is skipped. */
export type Mapped = Array<string | null> | { skip: string };

/** A foreign key checked before merging: a missing required reference skips the row, an optional one is nulled. */
export interface Reference {
  column: string;
  table: string;
  optional?: boolean;
}

export interface TableSpec {
  /** Tagwise table written. */
  target: string;
  /** Source tables, first present wins; with `union`, every present one is read. */
  sources: Array<{ table: string; fixed?: Record<string, string> }>;
  union?: boolean;
  /** Field name → candidate source column names. */
  fields: Record<string, string[]>;
  /** Fields without which a row means nothing (a table lacking one of them is not read). */
  required: string[];
  /** Target columns, in the order `map` returns values. */
  columns: string[];
  /** Primary key columns of the target. */
  key: string[];
  /** The source id column of a row, for reports. */
  describe: (row: SourceRow) => string;
  map: (row: SourceRow) => Mapped;
  references?: Reference[];
  /** Rows carry `updated_at`: a live incremental run reads only the changed ones. */
  changedBy?: 'updated_at';
  /** Child rows of images: a live incremental run reads those of changed images only. */
  imageChild?: boolean;
  /** Target columns computed when applying, as SQL over the staging table. */
  computed?: Record<string, string>;
  /** Unique columns besides the key: a row taking a value another row holds is skipped. */
  unique?: string[][];
  /** Column types of the staging table when the target is not a Tagwise table. */
  stagingColumns?: string;
  /**
   * Target column → the COPY text its same-named field may have for `map` to stage that value
   * unchanged, or that and the constant `map` gives a null (`orNull`). When every column has one
   * and a line matches them all, the line is staged as it came, unparsed, its nulls replaced
   * (stage.ts); any other line goes through `map`. So each pattern must accept only text `map`
   * would keep as it is (times aside: staged without their `Z` in a UTC session).
   */
  direct?: Record<string, DirectColumn>;
}

export type DirectColumn = string | { pattern: string; ifNull: string };

/** A table as written in TABLE_DEFS: what most tables share may be left out (see `withDefaults`). */
type Defaulted = 'sources' | 'columns' | 'key' | 'describe';
type TableDef = Omit<TableSpec, Defaulted> & Partial<Pick<TableSpec, Defaulted>>;

/**
 * A table's spec with what most tables share filled in: read from the source table of the same
 * name, target columns the fields in their order, keyed by `id`, a row described by its key.
 */
function withDefaults(def: TableDef): TableSpec {
  const key = def.key ?? ['id'];
  return {
    ...def,
    sources: def.sources ?? [{ table: def.target }],
    columns: def.columns ?? Object.keys(def.fields),
    key,
    describe: def.describe ?? ((row) => key.map((k) => `${k} ${row[k]}`).join(' ')),
  };
}

/** A `direct` column whose null `map` turns into `constant` (a COPY text without escapes). */
const orNull = (pattern: string, constant: string): DirectColumn => ({ pattern, ifNull: constant });

/** COPY text patterns for `direct`: what `map` keeps as it is. */
const INT = '-?\\d{1,9}'; // within ±2^31 by its length; longer ones go through `map`'s check
const OPT_INT = `(?:\\\\N|${INT})`;
const BOOL = '[tf]';
const TIME = '\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01]) (?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d{1,6})?';
const OPT_TIME = `(?:\\\\N|${TIME})`;
/** Any value but null (`text()` would make null empty). */
const PRESENT = '(?!\\\\N(?:\\t|$))[^\\t]*';
/** Any value, null too. */
const ANY = '[^\\t]*';
const EPOCH = '1970-01-01 00:00:00';
const ONE_OF = (list: readonly string[]) => `(?:${list.map((v) => v.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})`;

const MAX_INT = 2_147_483_647;

class BadValue extends Error {}

function int(value: string | null | undefined, field: string): string {
  if (value == null || !/^-?\d+$/.test(value) || Math.abs(Number(value)) > MAX_INT) throw new BadValue(`${field} is not an integer: ${value}`);
  return value;
}
const intOr = (value: string | null | undefined, fallback: string, field: string) => (value == null ? fallback : int(value, field));
const optInt = (value: string | null | undefined, field: string) => (value == null ? null : int(value, field));
const boolOr = (value: string | null | undefined, fallback: boolean) => (value == null ? (fallback ? 't' : 'f') : value);
const text = (value: string | null | undefined) => value ?? '';

/** Source timestamps are UTC wall-clock values (`timestamp without time zone`): say so. */
export function utc(value: string | null | undefined): string | null {
  if (value == null) return null;
  return /(Z|[+-]\d{2}(:?\d{2})?)$/.test(value) ? value : `${value}Z`;
}
function time(value: string | null | undefined, field: string): string {
  const v = utc(value);
  if (v === null || Number.isNaN(Date.parse(v.replace(' ', 'T')))) throw new BadValue(`${field} is not a time: ${value}`);
  return v;
}

function oneOf<T extends string>(list: readonly T[], value: string | null | undefined, field: string): T {
  if (value == null || !(list as readonly string[]).includes(value)) throw new BadValue(`${field} "${value}" is not one of ${list.join(', ')}`);
  return value as T;
}

/** Run a mapper, turning a bad value into a skip reason. */
function guard(map: (row: SourceRow) => Array<string | null>): (row: SourceRow) => Mapped {
  return (row) => {
    try {
      return map(row);
    } catch (err) {
      if (err instanceof BadValue) return { skip: err.message };
      throw err;
    }
  };
}

const f = (...names: string[]) => names;

const MIME_OF_FORMAT: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml', webm: 'video/webm' };

/** Tagwise's link states; Philomena's `contacted` is a step before verification. */
function linkState(value: string | null | undefined): string {
  if (value === 'contacted') return 'unverified';
  return oneOf(linkStates, value, 'aasm_state');
}

const TABLE_DEFS: TableDef[] = [
  {
    target: 'users',
    fields: {
      id: f('id'), name: f('name'), slug: f('slug'), role: f('role'), hide_default_role: f('hide_default_role'),
      description: f('description'), avatar: f('avatar'), deleted_at: f('deleted_at'),
      images_count: f('images_count', 'uploads_count'), comments_count: f('comments_count', 'comments_posted_count'),
      posts_count: f('posts_count', 'forum_posts_count'), topics_count: f('topics_count', 'topic_count'),
      created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'name'],
    columns: ['id', 'name', 'slug', 'role', 'hide_default_role', 'description', 'avatar', 'images_count', 'comments_count', 'posts_count', 'topics_count', 'confirmed_at', 'deleted_at', 'created_at', 'updated_at'],
    unique: [['name'], ['slug']],
    changedBy: 'updated_at',
    map: guard((r) => {
      if (!r.name) throw new BadValue('name is empty');
      const created = r.created_at == null ? '1970-01-01 00:00:00Z' : time(r.created_at, 'created_at');
      return [
        int(r.id, 'id'), r.name, r.slug || slugify(r.name), r.role == null ? 'user' : oneOf(roles, r.role, 'role'),
        boolOr(r.hide_default_role, false), text(r.description), r.avatar || null,
        intOr(r.images_count, '0', 'images_count'), intOr(r.comments_count, '0', 'comments_count'),
        intOr(r.posts_count, '0', 'posts_count'), intOr(r.topics_count, '0', 'topics_count'),
        // Accounts are usable (an operator may issue keys); the source's confirmation time is private.
        created, utc(r.deleted_at), created, r.updated_at == null ? created : time(r.updated_at, 'updated_at'),
      ];
    }),
  },
  {
    target: 'badges',
    fields: { id: f('id'), title: f('title'), description: f('description'), image: f('image'), created_at: f('created_at') },
    required: ['id', 'title'],
    map: guard((r) => [int(r.id, 'id'), r.title!, text(r.description), text(r.image), time(r.created_at ?? '1970-01-01 00:00:00', 'created_at')]),
  },
  {
    target: 'tags',
    fields: {
      id: f('id'), name: f('name'), slug: f('slug'), namespace: f('namespace'), name_in_namespace: f('name_in_namespace'),
      category: f('category'), description: f('description'), short_description: f('short_description'), image: f('image'),
      images_count: f('images_count', 'images', 'image_count'), aliased_tag_id: f('aliased_tag_id'),
      created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'name'],
    unique: [['name'], ['slug']],
    changedBy: 'updated_at',
    references: [{ column: 'aliased_tag_id', table: 'tags', optional: true }],
    map: guard((r) => {
      if (!r.name) throw new BadValue('name is empty');
      const split = splitNamespace(r.name);
      const created = time(r.created_at ?? '1970-01-01 00:00:00', 'created_at');
      return [
        int(r.id, 'id'), r.name, r.slug || slugify(r.name),
        r.namespace === undefined ? split.namespace : r.namespace, r.name_in_namespace ?? split.nameInNamespace,
        r.category == null || r.category === '' ? null : oneOf(tagCategories, r.category, 'category'),
        text(r.description), text(r.short_description), r.image || null, intOr(r.images_count, '0', 'images_count'),
        optInt(r.aliased_tag_id, 'aliased_tag_id'), created, r.updated_at == null ? created : time(r.updated_at, 'updated_at'),
      ];
    }),
  },
  {
    // The public dump keeps aliases in their own table; they are folded into the staged tags.
    target: 'tag_aliases',
    fields: { tag_id: f('tag_id'), target_tag_id: f('target_tag_id', 'aliased_tag_id') },
    required: ['tag_id', 'target_tag_id'],
    key: ['tag_id'],
    stagingColumns: 'tag_id integer, target_tag_id integer',
    map: guard((r) => [int(r.tag_id, 'tag_id'), int(r.target_tag_id, 'target_tag_id')]),
  },
  {
    target: 'tag_implications',
    sources: [{ table: 'tags_implied_tags' }, { table: 'tag_implications' }],
    fields: { tag_id: f('tag_id'), implied_tag_id: f('implied_tag_id', 'target_tag_id') },
    required: ['tag_id', 'implied_tag_id'],
    key: ['tag_id', 'implied_tag_id'],
    references: [{ column: 'tag_id', table: 'tags' }, { column: 'implied_tag_id', table: 'tags' }],
    map: guard((r) => [int(r.tag_id, 'tag_id'), int(r.implied_tag_id, 'implied_tag_id')]),
  },
  {
    target: 'dnp_entries',
    fields: {
      id: f('id'), tag_id: f('tag_id'), dnp_type: f('dnp_type'), conditions: f('conditions'), reason: f('reason'),
      hide_reason: f('hide_reason'), state: f('aasm_state'), created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'tag_id', 'dnp_type'],
    changedBy: 'updated_at',
    references: [{ column: 'tag_id', table: 'tags' }],
    map: guard((r) => [
      int(r.id, 'id'), int(r.tag_id, 'tag_id'), oneOf(dnpTypes, r.dnp_type, 'dnp_type'), text(r.conditions), text(r.reason),
      boolOr(r.hide_reason, false), r.state == null ? 'listed' : oneOf(['requested', 'claimed', 'listed', 'rescinded', 'acknowledged', 'closed'], r.state, 'aasm_state'),
      time(r.created_at, 'created_at'), time(r.updated_at ?? r.created_at, 'updated_at'),
    ]),
  },
  {
    target: 'user_links',
    sources: [{ table: 'artist_links' }, { table: 'user_links' }],
    fields: { id: f('id'), user_id: f('user_id'), tag_id: f('tag_id'), uri: f('uri'), state: f('aasm_state'), public: f('public'), created_at: f('created_at') },
    required: ['id', 'user_id', 'uri'],
    references: [{ column: 'user_id', table: 'users' }, { column: 'tag_id', table: 'tags', optional: true }],
    map: guard((r) => [int(r.id, 'id'), int(r.user_id, 'user_id'), optInt(r.tag_id, 'tag_id'), r.uri!, linkState(r.state ?? 'verified'), boolOr(r.public, true), time(r.created_at, 'created_at')]),
  },
  {
    target: 'badge_awards',
    fields: { id: f('id'), badge_id: f('badge_id'), user_id: f('user_id'), label: f('label'), awarded_on: f('awarded_on') },
    required: ['id', 'badge_id', 'user_id'],
    references: [{ column: 'badge_id', table: 'badges' }, { column: 'user_id', table: 'users' }],
    map: guard((r) => [int(r.id, 'id'), int(r.badge_id, 'badge_id'), int(r.user_id, 'user_id'), text(r.label), time(r.awarded_on, 'awarded_on')]),
  },
  {
    target: 'images',
    fields: {
      id: f('id'), user_id: f('user_id'), anonymous: f('anonymous'), image_name: f('image_name'),
      image_width: f('image_width'), image_height: f('image_height'), image_size: f('image_size'), image_orig_size: f('image_orig_size'),
      image_format: f('image_format'), image_mime_type: f('image_mime_type'), image_aspect_ratio: f('image_aspect_ratio'),
      image_duration: f('image_duration'), is_animated: f('is_animated', 'image_is_animated'),
      image_sha512_hash: f('image_sha512_hash'), image_orig_sha512_hash: f('image_orig_sha512_hash'), description: f('description'),
      score: f('score'), upvotes_count: f('upvotes_count', 'upvotes'), downvotes_count: f('downvotes_count', 'downvotes'),
      faves_count: f('faves_count', 'faves', 'favourites', 'favorites'), hides_count: f('hides_count', 'hides'),
      comments_count: f('comments_count', 'comment_count'), approved: f('approved'), hidden_from_users: f('hidden_from_users'),
      deletion_reason: f('deletion_reason'), duplicate_id: f('duplicate_id'), destroyed_content: f('destroyed_content'),
      processed: f('processed'), thumbnails_generated: f('thumbnails_generated'), duplication_checked: f('duplication_checked'),
      first_seen_at: f('first_seen_at'), created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'created_at'],
    changedBy: 'updated_at',
    references: [{ column: 'user_id', table: 'users', optional: true }],
    direct: {
      id: INT, user_id: OPT_INT, anonymous: orNull(BOOL, 'f'), image_name: orNull(PRESENT, ''), image_width: orNull(INT, '0'),
      image_height: orNull(INT, '0'), image_size: orNull(INT, '0'), image_orig_size: INT, image_format: ONE_OF(imageFormats),
      image_mime_type: ONE_OF(imageMimeTypes), image_aspect_ratio: PRESENT, image_duration: orNull(PRESENT, '0'),
      is_animated: orNull(BOOL, 'f'), image_sha512_hash: orNull(PRESENT, ''), image_orig_sha512_hash: orNull(PRESENT, ''),
      description: orNull(PRESENT, ''), score: INT, upvotes_count: orNull(INT, '0'), downvotes_count: orNull(INT, '0'),
      faves_count: orNull(INT, '0'), hides_count: orNull(INT, '0'), comments_count: orNull(INT, '0'), approved: orNull(BOOL, 't'),
      hidden_from_users: orNull(BOOL, 'f'), deletion_reason: ANY, duplicate_id: OPT_INT, destroyed_content: orNull(BOOL, 'f'),
      processed: BOOL, thumbnails_generated: BOOL, duplication_checked: orNull(BOOL, 'f'), first_seen_at: TIME, created_at: TIME,
      updated_at: TIME,
    },
    map: guard((r) => {
      const format = oneOf(imageFormats, r.image_format?.toLowerCase(), 'image_format');
      const mime = oneOf(imageMimeTypes, r.image_mime_type ?? MIME_OF_FORMAT[format], 'image_mime_type');
      const width = intOr(r.image_width, '0', 'image_width');
      const height = intOr(r.image_height, '0', 'image_height');
      const ratio = r.image_aspect_ratio ?? String(Number(height) === 0 ? 0 : Number(width) / Number(height));
      const up = intOr(r.upvotes_count, '0', 'upvotes');
      const down = intOr(r.downvotes_count, '0', 'downvotes');
      const created = time(r.created_at, 'created_at');
      const size = intOr(r.image_size, '0', 'image_size');
      // A dump without processing state holds only published images, whose files the origin serves.
      const published = r.hidden_from_users == null;
      return [
        int(r.id, 'id'), optInt(r.user_id, 'user_id'), boolOr(r.anonymous, false), text(r.image_name), width, height, size,
        intOr(r.image_orig_size, size, 'image_orig_size'), format, mime, ratio, r.image_duration ?? '0', boolOr(r.is_animated, false),
        text(r.image_sha512_hash), text(r.image_orig_sha512_hash), text(r.description),
        intOr(r.score, String(Number(up) - Number(down)), 'score'), up, down, intOr(r.faves_count, '0', 'faves'),
        intOr(r.hides_count, '0', 'hides'), intOr(r.comments_count, '0', 'comments_count'), boolOr(r.approved, true),
        boolOr(r.hidden_from_users, false), r.deletion_reason ?? null, optInt(r.duplicate_id, 'duplicate_id'),
        boolOr(r.destroyed_content, false), boolOr(r.processed, published), boolOr(r.thumbnails_generated, published),
        boolOr(r.duplication_checked, false), r.first_seen_at == null ? created : time(r.first_seen_at, 'first_seen_at'), created,
        r.updated_at == null ? created : time(r.updated_at, 'updated_at'),
      ];
    }),
  },
  {
    target: 'image_taggings',
    fields: { image_id: f('image_id'), tag_id: f('tag_id') },
    required: ['image_id', 'tag_id'],
    key: ['image_id', 'tag_id'],
    imageChild: true,
    references: [{ column: 'image_id', table: 'images' }, { column: 'tag_id', table: 'tags' }],
    direct: { image_id: INT, tag_id: INT },
    map: guard((r) => [int(r.image_id, 'image_id'), int(r.tag_id, 'tag_id')]),
  },
  {
    target: 'image_sources',
    fields: { image_id: f('image_id'), source: f('source') },
    required: ['image_id', 'source'],
    key: ['image_id', 'source'],
    // Sources keep the order the source returned them in: the first is `source_url`.
    computed: { position: '(row_number() over (partition by image_id order by _ord) - 1)::int' },
    describe: (r) => `image_id ${r.image_id}`,
    imageChild: true,
    references: [{ column: 'image_id', table: 'images' }],
    direct: { image_id: INT, source: `(?!\\\\N(?:\\t|$))[^\\t]+` },
    map: guard((r) => {
      if (!r.source) throw new BadValue('source is empty');
      return [int(r.image_id, 'image_id'), r.source];
    }),
  },
  {
    target: 'image_intensities',
    fields: { image_id: f('image_id'), nw: f('nw'), ne: f('ne'), sw: f('sw'), se: f('se') },
    required: ['image_id', 'nw', 'ne', 'sw', 'se'],
    key: ['image_id'],
    imageChild: true,
    references: [{ column: 'image_id', table: 'images' }],
    direct: { image_id: INT, nw: ANY, ne: ANY, sw: ANY, se: ANY },
    map: guard((r) => [int(r.image_id, 'image_id'), r.nw!, r.ne!, r.sw!, r.se!]),
  },
  ...(['image_faves', 'image_hides'] as const).map((target): TableDef => ({
    target,
    fields: { image_id: f('image_id'), user_id: f('user_id'), created_at: f('created_at') },
    required: ['image_id', 'user_id'],
    key: ['image_id', 'user_id'],
    references: [{ column: 'image_id', table: 'images' }, { column: 'user_id', table: 'users' }],
    direct: { image_id: INT, user_id: INT, created_at: orNull(TIME, EPOCH) },
    map: guard((r) => [int(r.image_id, 'image_id'), int(r.user_id, 'user_id'), time(r.created_at ?? '1970-01-01 00:00:00', 'created_at')]),
  })),
  {
    target: 'image_votes',
    sources: [{ table: 'image_votes' }, { table: 'upvotes', fixed: { up: 't' } }, { table: 'downvotes', fixed: { up: 'f' } }],
    union: true,
    fields: { image_id: f('image_id'), user_id: f('user_id'), up: f('up'), created_at: f('created_at') },
    required: ['image_id', 'user_id'],
    key: ['image_id', 'user_id'],
    references: [{ column: 'image_id', table: 'images' }, { column: 'user_id', table: 'users' }],
    direct: { image_id: INT, user_id: INT, up: BOOL, created_at: orNull(TIME, EPOCH) },
    map: guard((r) => {
      if (r.up == null) throw new BadValue('up is missing');
      return [int(r.image_id, 'image_id'), int(r.user_id, 'user_id'), r.up, time(r.created_at ?? '1970-01-01 00:00:00', 'created_at')];
    }),
  },
  {
    // Who featured an image is staff information: kept, as Philomena keeps it, and never rendered.
    target: 'image_features',
    fields: { id: f('id'), image_id: f('image_id'), user_id: f('user_id'), created_at: f('created_at') },
    required: ['id', 'image_id'],
    references: [{ column: 'image_id', table: 'images' }, { column: 'user_id', table: 'users', optional: true }],
    map: guard((r) => [int(r.id, 'id'), int(r.image_id, 'image_id'), optInt(r.user_id, 'user_id'), time(r.created_at, 'created_at')]),
  },
  {
    target: 'comments',
    fields: {
      id: f('id'), image_id: f('image_id'), user_id: f('user_id'), anonymous: f('anonymous'), body: f('body'), approved: f('approved'),
      hidden_from_users: f('hidden_from_users'), destroyed_content: f('destroyed_content'), deletion_reason: f('deletion_reason'),
      edited_at: f('edited_at'), edit_reason: f('edit_reason'), created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'image_id'],
    changedBy: 'updated_at',
    references: [{ column: 'image_id', table: 'images' }, { column: 'user_id', table: 'users', optional: true }],
    direct: {
      id: INT, image_id: INT, user_id: OPT_INT, anonymous: orNull(BOOL, 'f'), body: orNull(PRESENT, ''), approved: orNull(BOOL, 't'),
      hidden_from_users: orNull(BOOL, 'f'), destroyed_content: orNull(BOOL, 'f'), deletion_reason: orNull(PRESENT, ''),
      edited_at: OPT_TIME, edit_reason: ANY, created_at: TIME, updated_at: TIME,
    },
    map: guard((r) => {
      const created = time(r.created_at, 'created_at');
      return [
        int(r.id, 'id'), int(r.image_id, 'image_id'), optInt(r.user_id, 'user_id'), boolOr(r.anonymous, false), text(r.body),
        boolOr(r.approved, true), boolOr(r.hidden_from_users, false), boolOr(r.destroyed_content, false), text(r.deletion_reason),
        utc(r.edited_at), r.edit_reason ?? null, created, r.updated_at == null ? created : time(r.updated_at, 'updated_at'),
      ];
    }),
  },
  {
    target: 'forums',
    fields: {
      id: f('id'), name: f('name'), short_name: f('short_name'), description: f('description'), access_level: f('access_level'),
      topic_count: f('topic_count'), post_count: f('post_count'), created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'name', 'short_name'],
    unique: [['short_name']],
    changedBy: 'updated_at',
    map: guard((r) => [
      int(r.id, 'id'), r.name!, r.short_name!, text(r.description), r.access_level == null ? 'normal' : oneOf(accessLevels, r.access_level, 'access_level'),
      intOr(r.topic_count, '0', 'topic_count'), intOr(r.post_count, '0', 'post_count'), time(r.created_at, 'created_at'), time(r.updated_at ?? r.created_at, 'updated_at'),
    ]),
  },
  {
    target: 'topics',
    fields: {
      id: f('id'), forum_id: f('forum_id'), user_id: f('user_id'), anonymous: f('anonymous'), title: f('title'), slug: f('slug'),
      sticky: f('sticky'), locked_at: f('locked_at'), hidden_from_users: f('hidden_from_users'), deletion_reason: f('deletion_reason'),
      post_count: f('post_count'), view_count: f('view_count'), last_replied_to_at: f('last_replied_to_at'),
      created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'forum_id', 'title', 'slug'],
    unique: [['forum_id', 'slug']],
    changedBy: 'updated_at',
    references: [{ column: 'forum_id', table: 'forums' }, { column: 'user_id', table: 'users', optional: true }],
    map: guard((r) => {
      const created = time(r.created_at, 'created_at');
      return [
        int(r.id, 'id'), int(r.forum_id, 'forum_id'), optInt(r.user_id, 'user_id'), boolOr(r.anonymous, false), r.title!, r.slug!,
        boolOr(r.sticky, false), utc(r.locked_at), boolOr(r.hidden_from_users, false), text(r.deletion_reason),
        intOr(r.post_count, '0', 'post_count'), intOr(r.view_count, '0', 'view_count'), utc(r.last_replied_to_at) ?? created,
        created, r.updated_at == null ? created : time(r.updated_at, 'updated_at'),
      ];
    }),
  },
  {
    target: 'posts',
    fields: {
      id: f('id'), topic_id: f('topic_id'), user_id: f('user_id'), anonymous: f('anonymous'), body: f('body'), topic_position: f('topic_position'),
      approved: f('approved'), hidden_from_users: f('hidden_from_users'), destroyed_content: f('destroyed_content'),
      deletion_reason: f('deletion_reason'), edited_at: f('edited_at'), edit_reason: f('edit_reason'), created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'topic_id', 'topic_position'],
    changedBy: 'updated_at',
    references: [{ column: 'topic_id', table: 'topics' }, { column: 'user_id', table: 'users', optional: true }],
    map: guard((r) => {
      const created = time(r.created_at, 'created_at');
      return [
        int(r.id, 'id'), int(r.topic_id, 'topic_id'), optInt(r.user_id, 'user_id'), boolOr(r.anonymous, false), text(r.body),
        int(r.topic_position, 'topic_position'), boolOr(r.approved, true), boolOr(r.hidden_from_users, false),
        boolOr(r.destroyed_content, false), text(r.deletion_reason), utc(r.edited_at), r.edit_reason ?? null, created,
        r.updated_at == null ? created : time(r.updated_at, 'updated_at'),
      ];
    }),
  },
  {
    target: 'galleries',
    fields: {
      id: f('id'), title: f('title'), description: f('description'), spoiler_warning: f('spoiler_warning'), thumbnail_id: f('thumbnail_id'),
      creator_id: f('user_id', 'creator_id'), anonymous: f('anonymous'), image_count: f('image_count'), created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'title', 'thumbnail_id', 'creator_id'],
    changedBy: 'updated_at',
    references: [{ column: 'thumbnail_id', table: 'images' }, { column: 'creator_id', table: 'users' }],
    map: guard((r) => {
      const created = time(r.created_at, 'created_at');
      return [
        int(r.id, 'id'), r.title!, text(r.description), text(r.spoiler_warning), int(r.thumbnail_id, 'thumbnail_id'),
        int(r.creator_id, 'user_id'), boolOr(r.anonymous, false), intOr(r.image_count, '0', 'image_count'), created,
        r.updated_at == null ? created : time(r.updated_at, 'updated_at'),
      ];
    }),
  },
  {
    target: 'gallery_interactions',
    fields: { gallery_id: f('gallery_id'), image_id: f('image_id'), position: f('position') },
    required: ['gallery_id', 'image_id'],
    key: ['gallery_id', 'image_id'],
    references: [{ column: 'gallery_id', table: 'galleries' }, { column: 'image_id', table: 'images' }],
    direct: { gallery_id: INT, image_id: INT, position: orNull(INT, '0') },
    map: guard((r) => [int(r.gallery_id, 'gallery_id'), int(r.image_id, 'image_id'), intOr(r.position, '0', 'position')]),
  },
  {
    target: 'filters',
    fields: {
      id: f('id'), name: f('name'), description: f('description'), system: f('system'), public: f('public'), user_id: f('user_id'),
      user_count: f('user_count'), hidden_tag_ids: f('hidden_tag_ids'), spoilered_tag_ids: f('spoilered_tag_ids'),
      hidden_complex_str: f('hidden_complex_str'), spoilered_complex_str: f('spoilered_complex_str'), created_at: f('created_at'), updated_at: f('updated_at'),
    },
    required: ['id', 'name'],
    changedBy: 'updated_at',
    // A user's own filter goes with the user: without them it is skipped.
    references: [{ column: 'user_id', table: 'users' }],
    map: guard((r) => {
      const created = time(r.created_at, 'created_at');
      const ids = (v: string | null | undefined, field: string) => {
        const list = v == null ? '{}' : v;
        if (!/^\{(-?\d+(,-?\d+)*)?\}$/.test(list)) throw new BadValue(`${field} is not a list of ids: ${v}`);
        return list;
      };
      return [
        int(r.id, 'id'), r.name!, text(r.description), boolOr(r.system, false), boolOr(r.public, false), optInt(r.user_id, 'user_id'),
        intOr(r.user_count, '0', 'user_count'), ids(r.hidden_tag_ids, 'hidden_tag_ids'), ids(r.spoilered_tag_ids, 'spoilered_tag_ids'),
        text(r.hidden_complex_str), text(r.spoilered_complex_str), created, r.updated_at == null ? created : time(r.updated_at, 'updated_at'),
      ];
    }),
  },
];

export const TABLES: TableSpec[] = TABLE_DEFS.map(withDefaults);
