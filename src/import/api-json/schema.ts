/**
 * The import format: a board written in the API's own response shapes (spec/api.md, reference
 * §5), one top-level array per resource, plus a few fields the API does not show but a board
 * needs (marked "import only" below). Every record is checked on its own here; references between
 * records are checked by the importer.
 *
 * Each record schema is the API's response schema (src/api/schemas/resources.ts) made partial, so
 * a field added to the API is accepted here without a second edit, and extended with what the
 * import needs on top: the fields it requires, defaults for what it may omit, tighter limits where
 * the value is stored as is (names, counters of int32 columns), leniencies for what it only reads
 * (any string for URLs it does not serve, datetimes with an offset, turned into Dates), and the
 * import-only fields. The API schemas are strict objects, and so are these.
 */
import { z } from 'zod';
import { INT32_MAX } from '../../db/int32.js';
import { Award, Comment, DnpEntry, Filter, Forum, Gallery, Image, Link, Post, Profile, Tag, Topic } from '../../api/schemas/resources.js';
import { count, id as apiId } from '../../api/schemas/common.js';

/** RFC 3339 datetime (`Z` or an offset, any precision) as a Date. */
const datetime = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const id = apiId();
/** Counters are stored in `integer` columns. */
const counter = count().max(INT32_MAX);

export const linkSchema = Link.partial().extend({
  created_at: datetime,
  state: Link.shape.state,
  tag_id: Link.shape.tag_id.default(null),
  /** import only: the linked address (not shown by the API). */
  uri: z.string().max(2000).optional(),
  /** import only. */
  public: z.boolean().optional(),
});

export const awardSchema = Award.partial().extend({
  image_url: z.string().min(1),
  title: z.string().min(1),
  /** The badge's id. */
  id,
  label: z.string().nullable().default(''),
  awarded_on: datetime,
  /** import only: the badge's description. */
  description: z.string().optional(),
});

export const userSchema = Profile.partial().extend({
  id,
  name: z.string().trim().min(1).max(50),
  slug: z.string().min(1).optional(),
  role: Profile.shape.role.default('user'),
  description: z.string().nullable().default(''),
  avatar_url: z.string().nullable().default(null),
  created_at: datetime,
  comments_count: counter.default(0),
  uploads_count: counter.default(0),
  posts_count: counter.default(0),
  topics_count: counter.default(0),
  links: z.array(linkSchema).default([]),
  awards: z.array(awardSchema).default([]),
  /** import only. */
  email: z.email().optional(),
  /** import only: a trusted user, whose uploads are approved at once (else they wait for approval). */
  verified: z.boolean().optional(),
  /** import only: API key(s) of the user, stored hashed. */
  api_key: z.union([z.string().min(20).max(200), z.array(z.string().min(20).max(200))]).optional(),
});

export const dnpEntrySchema = DnpEntry.partial().extend({
  id,
  dnp_type: DnpEntry.shape.dnp_type,
  conditions: z.string().nullable().default(''),
  reason: DnpEntry.shape.reason.default(null),
  created_at: datetime,
});

const slugList = z.array(z.string().min(1)).default([]);

export const tagSchema = Tag.partial().extend({
  id,
  name: z.string().min(1),
  slug: z.string().min(1).optional(),
  description: z.string().nullable().default(''),
  short_description: z.string().nullable().default(''),
  images: counter.default(0),
  spoiler_image_uri: z.string().nullable().default(null),
  aliased_tag: Tag.shape.aliased_tag.default(null),
  aliases: slugList,
  implied_tags: slugList,
  implied_by_tags: slugList,
  dnp_entries: z.array(dnpEntrySchema).default([]),
});

const sha512 = z.string().regex(/^[0-9a-f]{128}$/, 'must be 128 lowercase hex digits');

export const imageSchema = Image.partial()
  .extend({
    id,
    created_at: datetime,
    updated_at: datetime.optional(),
    first_seen_at: datetime.optional(),
    hidden_from_users: Image.shape.hidden_from_users.default(false),
    duplicate_of: Image.shape.duplicate_of.default(null),
    deletion_reason: Image.shape.deletion_reason.default(null),
    /** import only: local path of the original file (relative to the import file). */
    file: z.string().min(1).optional(),
    name: z.string().max(255).optional(),
    description: z.string().max(50_000).default(''),
    tag_count: counter.optional(),
    source_url: z.string().nullable().optional(),
    source_urls: z.array(z.string().regex(/^https?:\/\//i, 'must start with http:// or https://').max(255)).max(15).optional(),
    uploader_id: Image.shape.uploader_id.default(null),
    /** import only: the upload is anonymous although `uploader_id` is known. */
    anonymous: z.boolean().default(false),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
    size: counter.optional(),
    orig_size: counter.optional(),
    aspect_ratio: z.number().positive().optional(),
    duration: z.number().min(0).nullable().optional(),
    sha512_hash: sha512.optional(),
    orig_sha512_hash: sha512.optional(),
    upvotes: counter.default(0),
    downvotes: counter.default(0),
    faves: counter.default(0),
    hides: counter.default(0),
    comment_count: counter.default(0),
    // Shown by the API, derived here: accepted in any form and ignored.
    representations: z.record(z.string(), z.string()).optional(),
    view_url: z.string().optional(),
  })
  .superRefine((img, ctx) => {
    if (!img.hidden_from_users && img.file === undefined) {
      for (const key of ['width', 'height', 'format', 'mime_type'] as const) {
        if (img[key] === undefined) ctx.addIssue({ code: 'custom', path: [key], message: 'required when there is no file' });
      }
    }
    if (img.score !== undefined && img.score !== img.upvotes - img.downvotes) {
      ctx.addIssue({ code: 'custom', path: ['score'], message: `must be upvotes - downvotes (${img.upvotes - img.downvotes})` });
    }
    if (img.duplicate_of !== null && img.duplicate_of === img.id) {
      ctx.addIssue({ code: 'custom', path: ['duplicate_of'], message: 'an image cannot be a duplicate of itself' });
    }
    if (img.duplicate_of !== null && !img.hidden_from_users) {
      ctx.addIssue({ code: 'custom', path: ['hidden_from_users'], message: 'must be true for a merged image' });
    }
  });

/** What comments and posts share beyond the API's message fields: an author as written, any avatar, and when it was written and edited. */
const authoredText = {
  author: z.string().nullable().optional(),
  avatar: z.string().optional(),
  /** null: the text is hidden. */
  body: z.string().max(300_000).nullable(),
  created_at: datetime,
  updated_at: datetime.optional(),
  edited_at: datetime.nullable().default(null),
  edit_reason: z.string().nullable().default(null),
  user_id: id.nullable().default(null),
  /** import only. */
  anonymous: z.boolean().default(false),
};

export const commentSchema = Comment.partial().extend({
  id,
  image_id: id,
  ...authoredText,
  /** import only: why a hidden comment was hidden. */
  deletion_reason: z.string().optional(),
});

export const forumSchema = Forum.partial().extend({
  /** import only (the API names forums by short name). */
  id: id.optional(),
  name: z.string().min(1),
  short_name: z.string().regex(/^[a-z0-9_-]+$/i, 'letters, digits, - and _ only'),
  description: z.string().default(''),
  topic_count: counter.default(0),
  post_count: counter.default(0),
  /** import only. */
  access_level: z.enum(['normal', 'assistant', 'staff']).default('normal'),
});

export const topicSchema = Topic.partial().extend({
  /** import only. */
  id: id.optional(),
  /** import only: short name of the topic's forum. */
  forum: z.string().min(1),
  slug: z.string().regex(/^[a-z0-9-]+$/, 'lowercase letters, digits and - only'),
  title: z.string().min(1).max(300),
  post_count: counter.default(0),
  view_count: counter.default(0),
  sticky: z.boolean().default(false),
  last_replied_to_at: datetime,
  locked: z.boolean().default(false),
  user_id: id.nullable().default(null),
  author: z.string().nullable().optional(),
  /** import only. */
  created_at: datetime.optional(),
  /** import only. */
  locked_at: datetime.optional(),
  /** import only. */
  anonymous: z.boolean().default(false),
});

export const postSchema = Post.partial().extend({
  id,
  /** import only: slug of the post's topic. */
  topic: z.string().min(1),
  /** import only: short name of the topic's forum, needed when two forums have a topic with that slug. */
  forum: z.string().min(1).optional(),
  /** import only: position in the topic from 0 (default: by creation time). */
  topic_position: counter.optional(),
  ...authoredText,
});

export const gallerySchema = Gallery.partial()
  .extend({
    id,
    title: z.string().min(1).max(100),
    thumbnail_id: id,
    spoiler_warning: z.string().default(''),
    description: z.string().default(''),
    // One of the two id pairs is required (checked below); null is not an owner.
    user_id: id.optional(),
    creator_id: id.optional(),
    /** import only: the gallery's images in order. */
    image_ids: z.array(id).default([]),
    /** import only. */
    created_at: datetime.optional(),
    /** import only. */
    updated_at: datetime.optional(),
  })
  .superRefine((g, ctx) => {
    if (g.user_id === undefined && g.creator_id === undefined) ctx.addIssue({ code: 'custom', path: ['user_id'], message: 'required' });
    if (g.user_id !== undefined && g.creator_id !== undefined && g.user_id !== g.creator_id) {
      ctx.addIssue({ code: 'custom', path: ['creator_id'], message: 'differs from user_id' });
    }
    if (new Set(g.image_ids).size !== g.image_ids.length) ctx.addIssue({ code: 'custom', path: ['image_ids'], message: 'lists an image twice' });
  });

export const filterSchema = Filter.partial()
  .extend({
    id,
    name: z.string().min(1).max(100),
    description: z.string().max(10_000).default(''),
    user_id: Filter.shape.user_id.default(null),
    user_count: counter.default(0),
    system: z.boolean().default(false),
    public: z.boolean().default(false),
    spoilered_tag_ids: z.array(id).default([]),
    spoilered_complex: z.string().nullable().default(''),
    hidden_tag_ids: z.array(id).default([]),
    hidden_complex: z.string().nullable().default(''),
    /** import only. */
    created_at: datetime.optional(),
  })
  .superRefine((f, ctx) => {
    if (f.system && f.user_id !== null) ctx.addIssue({ code: 'custom', path: ['user_id'], message: 'must be null for a system filter' });
    if (!f.system && f.user_id === null) ctx.addIssue({ code: 'custom', path: ['user_id'], message: 'required for a user filter' });
  });

export type UserRecord = z.output<typeof userSchema>;
export type TagRecord = z.output<typeof tagSchema>;
export type ImageRecord = z.output<typeof imageSchema>;
export type CommentRecord = z.output<typeof commentSchema>;
export type ForumRecord = z.output<typeof forumSchema>;
export type TopicRecord = z.output<typeof topicSchema>;
export type PostRecord = z.output<typeof postSchema>;
export type GalleryRecord = z.output<typeof gallerySchema>;
export type FilterRecord = z.output<typeof filterSchema>;

/** The resources of a board file, in the order they are checked and written. */
export const RESOURCES = {
  users: { schema: userSchema, label: 'user' },
  tags: { schema: tagSchema, label: 'tag' },
  images: { schema: imageSchema, label: 'image' },
  comments: { schema: commentSchema, label: 'comment' },
  forums: { schema: forumSchema, label: 'forum' },
  topics: { schema: topicSchema, label: 'topic' },
  posts: { schema: postSchema, label: 'post' },
  galleries: { schema: gallerySchema, label: 'gallery' },
  filters: { schema: filterSchema, label: 'filter' },
} as const;

export type ResourceName = keyof typeof RESOURCES;

/** The top level of a board file: every array is optional. */
export const boardShape = z.strictObject({
  users: z.array(z.unknown()).optional(),
  tags: z.array(z.unknown()).optional(),
  images: z.array(z.unknown()).optional(),
  comments: z.array(z.unknown()).optional(),
  forums: z.array(z.unknown()).optional(),
  topics: z.array(z.unknown()).optional(),
  posts: z.array(z.unknown()).optional(),
  galleries: z.array(z.unknown()).optional(),
  filters: z.array(z.unknown()).optional(),
  featured_image_id: id.nullable().optional(),
});

export interface ParsedBoard {
  users: UserRecord[];
  tags: TagRecord[];
  images: ImageRecord[];
  comments: CommentRecord[];
  forums: ForumRecord[];
  topics: TopicRecord[];
  posts: PostRecord[];
  galleries: GalleryRecord[];
  filters: FilterRecord[];
  featuredImageId: number | null | undefined;
}

/** How a record is named in problem reports: its id, its short name or slug, or its position. */
export function recordKey(resource: ResourceName, raw: unknown, index: number): string {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (resource === 'forums' && typeof r.short_name === 'string') return r.short_name;
  if (resource === 'topics' && typeof r.slug === 'string') return `${typeof r.forum === 'string' ? `${r.forum}/` : ''}${r.slug}`;
  if (typeof r.id === 'number' || typeof r.id === 'string') return String(r.id);
  return `#${index + 1}`;
}

function formatIssue(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * Check the shape of every record. Returns the records that passed, every problem found (each as
 * `<resource> <key>: <problem>`), and the keys of all records, valid or not (so that a reference
 * to a record with a problem of its own is not reported a second time).
 */
export function parseBoard(data: unknown): { board: ParsedBoard; problems: string[]; keys: Record<ResourceName, Set<string>> } {
  const problems: string[] = [];
  const keys = Object.fromEntries(Object.keys(RESOURCES).map((r) => [r, new Set<string>()])) as Record<ResourceName, Set<string>>;
  const board: ParsedBoard = {
    users: [], tags: [], images: [], comments: [], forums: [], topics: [], posts: [], galleries: [], filters: [],
    featuredImageId: undefined,
  };
  const top = boardShape.safeParse(data);
  if (!top.success) {
    for (const issue of top.error.issues) problems.push(`board: ${formatIssue(issue)}`);
    return { board, problems, keys };
  }
  board.featuredImageId = top.data.featured_image_id;
  for (const [resource, { schema, label }] of Object.entries(RESOURCES) as Array<[ResourceName, (typeof RESOURCES)[ResourceName]]>) {
    const list = top.data[resource] ?? [];
    list.forEach((raw, index) => {
      keys[resource].add(recordKey(resource, raw, index));
      const parsed = (schema as z.ZodType).safeParse(raw);
      if (parsed.success) (board[resource] as unknown[]).push(parsed.data);
      else for (const issue of parsed.error.issues) problems.push(`${label} ${recordKey(resource, raw, index)}: ${formatIssue(issue)}`);
    });
  }
  return { board, problems, keys };
}
