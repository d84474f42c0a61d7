/**
 * The spec's response tables (spec/api.md "Resources and their fields") as strict shapes, and a
 * checker: every field present, no unlisted field, every value of the stated type. Where the spec
 * leaves null-ability or element types open, the shapes follow the reference (§5) and the
 * client findings (clients.md); deliberate additions are listed per shape as `extras`.
 */

/**
 * A field type: `integer`, `float` (any finite number), `boolean`, `string`, `datetime`
 * (`YYYY-MM-DDTHH:MM:SSZ`), `url` (absolute http(s)), `string[]`, `integer[]`, `object`,
 * `object[]`, `enum:a|b|c`; a `?` suffix allows null. Or a predicate returning a problem or null.
 */
export type FieldType = string | ((value: unknown) => string | null);

export interface Shape {
  name: string;
  fields: Record<string, FieldType>;
  /** Fields beyond the spec's table that we send on purpose. */
  extras?: Record<string, FieldType>;
  /** Fields that may be absent. */
  optional?: readonly string[];
}

const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function isAbsoluteUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

function checkType(type: FieldType, value: unknown): string | null {
  if (typeof type === 'function') return type(value);
  let t = type;
  if (t.endsWith('?')) {
    if (value === null) return null;
    t = t.slice(0, -1);
  }
  const describe = () => `expected ${type}, got ${JSON.stringify(value)?.slice(0, 80)}`;
  switch (t) {
    case 'integer':
      return Number.isInteger(value) ? null : describe();
    case 'float':
      return typeof value === 'number' && Number.isFinite(value) ? null : describe();
    case 'boolean':
      return typeof value === 'boolean' ? null : describe();
    case 'string':
      return typeof value === 'string' ? null : describe();
    case 'datetime':
      return typeof value === 'string' && DATETIME.test(value) && !Number.isNaN(Date.parse(value)) ? null : describe();
    case 'url':
      return isAbsoluteUrl(value) ? null : describe();
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? null : describe();
    case 'integer[]':
      return Array.isArray(value) && value.every((v) => Number.isInteger(v)) ? null : describe();
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value) ? null : describe();
    case 'object[]':
      return Array.isArray(value) && value.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v)) ? null : describe();
    default:
      if (t.startsWith('enum:')) return t.slice(5).split('|').includes(value as string) ? null : describe();
      throw new Error(`unknown field type ${type}`);
  }
}

/** Every problem of `value` against `shape`; empty when it conforms. */
export function shapeProblems(value: unknown, shape: Shape): string[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${shape.name}: not an object`];
  const obj = value as Record<string, unknown>;
  const problems: string[] = [];
  const all = { ...shape.fields, ...shape.extras };
  for (const [field, type] of Object.entries(all)) {
    if (!(field in obj)) {
      if (!shape.optional?.includes(field)) problems.push(`${shape.name}.${field}: missing`);
      continue;
    }
    const p = checkType(type, obj[field]);
    if (p) problems.push(`${shape.name}.${field}: ${p}`);
  }
  for (const field of Object.keys(obj)) {
    if (!(field in all)) problems.push(`${shape.name}.${field}: not in the spec`);
  }
  return problems;
}

const nested = (shape: Shape) => (v: unknown) => {
  const p = shapeProblems(v, shape);
  return p.length ? p.join('; ') : null;
};
const listOf = (shape: Shape) => (v: unknown) => {
  if (!Array.isArray(v)) return `expected a list of ${shape.name}`;
  const p = v.flatMap((x) => shapeProblems(x, shape));
  return p.length ? p.join('; ') : null;
};

export const REPRESENTATIONS: Shape = {
  name: 'representations',
  fields: {
    full: 'url', large: 'url', medium: 'url', small: 'url', tall: 'url', thumb: 'url', thumb_small: 'url', thumb_tiny: 'url',
  },
  extras: { webm: 'url', mp4: 'url' },
  optional: ['webm', 'mp4'],
};

export const INTENSITIES: Shape = { name: 'intensities', fields: { nw: 'float', ne: 'float', sw: 'float', se: 'float' } };

export const IMAGE: Shape = {
  name: 'image',
  fields: {
    animated: 'boolean',
    aspect_ratio: 'float',
    comment_count: 'integer',
    created_at: 'datetime',
    deletion_reason: 'string?',
    description: 'string',
    downvotes: 'integer',
    duplicate_of: 'integer?',
    duration: 'float',
    faves: 'integer',
    first_seen_at: 'datetime',
    format: 'enum:gif|jpg|jpeg|png|svg|webm',
    height: 'integer',
    hidden_from_users: 'boolean',
    id: 'integer',
    intensities: (v) => (v === null ? null : nested(INTENSITIES)(v)),
    mime_type: 'enum:image/gif|image/jpeg|image/png|image/svg+xml|video/webm',
    name: 'string',
    orig_sha512_hash: 'string',
    processed: 'boolean',
    representations: nested(REPRESENTATIONS),
    score: 'integer',
    sha512_hash: 'string',
    size: 'integer',
    source_url: 'string',
    source_urls: 'string[]',
    spoilered: 'boolean',
    tag_count: 'integer',
    tag_ids: 'integer[]',
    tags: 'string[]',
    thumbnails_generated: 'boolean',
    updated_at: 'datetime',
    uploader: 'string?',
    uploader_id: 'integer?',
    upvotes: 'integer',
    view_url: 'url',
    width: 'integer',
    wilson_score: 'float',
  },
  // Kept from the reference's image body.
  extras: { orig_size: 'integer', hides: 'integer' },
};

/**
 * A merged or deleted image (reference §5.4, `image_view.ex`): id, times, `duplicate_of` or
 * `deletion_reason`, `hidden_from_users: true`; no `spoilered`, nothing of the file.
 */
export const HIDDEN_IMAGE: Shape = {
  name: 'hidden image',
  fields: {
    created_at: 'datetime',
    deletion_reason: 'string?',
    duplicate_of: 'integer?',
    first_seen_at: 'datetime',
    hidden_from_users: (v) => (v === true ? null : 'must be true'),
    id: 'integer',
    updated_at: 'datetime',
  },
};

export const COMMENT: Shape = {
  name: 'comment',
  fields: {
    author: 'string',
    avatar: 'string',
    body: 'string',
    created_at: 'datetime',
    edit_reason: 'string?',
    edited_at: 'datetime?',
    id: 'integer',
    image_id: 'integer',
    updated_at: 'datetime',
    user_id: 'integer?',
  },
};

/** A hidden comment: body and edit fields withheld. */
export const HIDDEN_COMMENT: Shape = { ...COMMENT, name: 'hidden comment', fields: { ...COMMENT.fields, body: 'string?' } };

export const FORUM: Shape = {
  name: 'forum',
  fields: { name: 'string', short_name: 'string', description: 'string', topic_count: 'integer', post_count: 'integer' },
};

export const TOPIC: Shape = {
  name: 'topic',
  fields: {
    slug: 'string',
    title: 'string',
    post_count: 'integer',
    view_count: 'integer',
    sticky: 'boolean',
    last_replied_to_at: 'datetime',
    locked: 'boolean',
    user_id: 'integer?',
    author: 'string',
  },
};

export const POST: Shape = {
  name: 'post',
  fields: {
    author: 'string',
    avatar: 'string',
    body: 'string?',
    created_at: 'datetime',
    edit_reason: 'string?',
    edited_at: 'datetime?',
    id: 'integer',
    updated_at: 'datetime',
    user_id: 'integer?',
  },
};

export const DNP_ENTRY: Shape = {
  name: 'dnp_entry',
  fields: { id: 'integer', dnp_type: 'string', conditions: 'string', reason: 'string?', created_at: 'datetime' },
};

export const TAG: Shape = {
  name: 'tag',
  fields: {
    aliased_tag: 'string?',
    aliases: 'string[]',
    category: 'enum:character|content-fanmade|content-official|error|oc|origin|rating|species|spoiler|body-type?',
    description: 'string',
    dnp_entries: listOf(DNP_ENTRY),
    id: 'integer',
    images: 'integer',
    implied_by_tags: 'string[]',
    implied_tags: 'string[]',
    name: 'string',
    name_in_namespace: 'string',
    namespace: 'string?',
    short_description: 'string',
    slug: 'string',
    spoiler_image_uri: (v) => (v === null ? null : checkType('url', v)),
  },
};

export const LINK: Shape = {
  name: 'link',
  fields: { user_id: 'integer', created_at: 'datetime', state: 'string', tag_id: 'integer?' },
};

export const AWARD: Shape = {
  name: 'award',
  fields: { image_url: 'url', title: 'string', id: 'integer', label: 'string', awarded_on: 'datetime' },
};

export const PROFILE: Shape = {
  name: 'user',
  fields: {
    id: 'integer',
    name: 'string',
    slug: 'string',
    role: 'string',
    description: 'string',
    avatar_url: (v) => (v === null ? null : checkType('url', v)),
    created_at: 'datetime',
    comments_count: 'integer',
    uploads_count: 'integer',
    posts_count: 'integer',
    topics_count: 'integer',
    links: listOf(LINK),
    awards: listOf(AWARD),
  },
};

export const FILTER: Shape = {
  name: 'filter',
  fields: {
    id: 'integer',
    name: 'string',
    description: 'string',
    user_id: 'integer?',
    user_count: 'integer',
    system: 'boolean',
    public: 'boolean',
    spoilered_tag_ids: 'integer[]',
    spoilered_complex: 'string',
    hidden_tag_ids: 'integer[]',
    hidden_complex: 'string',
  },
};

export const GALLERY: Shape = {
  name: 'gallery',
  fields: {
    description: 'string',
    id: 'integer',
    spoiler_warning: 'string',
    thumbnail_id: 'integer',
    title: 'string',
    user: 'string?',
    user_id: 'integer?',
  },
  // Upstream's current names, sent as well.
  extras: { creator: 'string?', creator_id: 'integer?' },
};

export const OEMBED: Shape = {
  name: 'oembed',
  fields: {
    author_name: 'string',
    author_url: 'string',
    cache_age: 'integer',
    site_comments: 'integer',
    site_id: 'integer',
    site_score: 'integer',
    site_tags: 'string[]',
    provider_name: 'string',
    provider_url: (v) => (typeof v === 'string' && v.startsWith('https://') ? null : `expected an https URL, got ${String(v)}`),
    title: 'string',
    type: 'enum:photo',
    version: 'enum:1.0',
  },
  // The standard oEmbed photo fields the reference sends.
  extras: { thumbnail_url: 'url', thumbnail_width: 'integer', thumbnail_height: 'integer', url: 'url', width: 'integer', height: 'integer' },
};

export const INTERACTION: Shape = {
  name: 'interaction',
  fields: { image_id: 'integer', user_id: 'integer', interaction_type: 'enum:hidden|faved|voted', value: 'enum:|up|down' },
};
