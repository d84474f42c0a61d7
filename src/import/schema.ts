/**
 * The import format: a board written in the API's own response shapes (spec/api.md, reference
 * §5), one top-level array per resource, plus a few fields the API does not show but a board
 * needs (marked "import only" below). Every record is checked on its own here; references between
 * records are checked by the importer.
 */
import { z } from 'zod';
import { dnpTypes, imageFormats, imageMimeTypes, linkStates, roles, tagCategories } from '../db/schema/index.js';

/** RFC 3339 datetime (`Z` or an offset) as a Date. */
const datetime = z.iso.datetime({ offset: true }).transform((s) => new Date(s));
const id = z.number().int().positive().max(2_147_483_647);
const count = z.number().int().min(0).max(2_147_483_647);

export const linkSchema = z.strictObject({
  user_id: id.optional(),
  created_at: datetime,
  state: z.enum(linkStates),
  tag_id: id.nullable().default(null),
  /** import only: the linked address (not shown by the API). */
  uri: z.string().max(2000).optional(),
  /** import only. */
  public: z.boolean().optional(),
});

export const awardSchema = z.strictObject({
  image_url: z.string().min(1),
  title: z.string().min(1),
  /** The badge's id. */
  id,
  label: z.string().nullable().default(''),
  awarded_on: datetime,
  /** import only: the badge's description. */
  description: z.string().optional(),
});

export const userSchema = z.strictObject({
  id,
  name: z.string().trim().min(1).max(50),
  slug: z.string().min(1).optional(),
  role: z.enum(roles).default('user'),
  description: z.string().nullable().default(''),
  avatar_url: z.string().nullable().default(null),
  created_at: datetime,
  comments_count: count.default(0),
  uploads_count: count.default(0),
  posts_count: count.default(0),
  topics_count: count.default(0),
  links: z.array(linkSchema).default([]),
  awards: z.array(awardSchema).default([]),
  /** import only. */
  email: z.email().optional(),
  /** import only: API key(s) of the user, stored hashed. */
  api_key: z.union([z.string().min(20).max(200), z.array(z.string().min(20).max(200))]).optional(),
});

export const dnpEntrySchema = z.strictObject({
  id,
  dnp_type: z.enum(dnpTypes),
  conditions: z.string().nullable().default(''),
  reason: z.string().nullable().default(null),
  created_at: datetime,
});

const slugList = z.array(z.string().min(1)).default([]);

export const tagSchema = z.strictObject({
  id,
  name: z.string().min(1),
  slug: z.string().min(1).optional(),
  description: z.string().nullable().default(''),
  short_description: z.string().nullable().default(''),
  images: count.default(0),
  spoiler_image_uri: z.string().nullable().default(null),
  namespace: z.string().nullable().optional(),
  name_in_namespace: z.string().optional(),
  category: z.enum(tagCategories).nullable().optional(),
  aliased_tag: z.string().nullable().default(null),
  aliases: slugList,
  implied_tags: slugList,
  implied_by_tags: slugList,
  dnp_entries: z.array(dnpEntrySchema).default([]),
});

export const intensitiesSchema = z.strictObject({ nw: z.number(), ne: z.number(), sw: z.number(), se: z.number() });

const sha512 = z.string().regex(/^[0-9a-f]{128}$/, 'must be 128 lowercase hex digits');

export const imageSchema = z
  .strictObject({
    id,
    created_at: datetime,
    updated_at: datetime.optional(),
    first_seen_at: datetime.optional(),
    hidden_from_users: z.boolean().default(false),
    duplicate_of: id.nullable().default(null),
    deletion_reason: z.string().nullable().default(null),
    /** import only: local path of the original file (relative to the import file). */
    file: z.string().min(1).optional(),
    name: z.string().max(255).optional(),
    description: z.string().max(50_000).default(''),
    tag_ids: z.array(id).optional(),
    tags: z.array(z.string()).optional(),
    tag_count: count.optional(),
    source_url: z.string().nullable().optional(),
    source_urls: z.array(z.string().regex(/^https?:\/\//i, 'must start with http:// or https://').max(255)).max(15).optional(),
    uploader_id: id.nullable().default(null),
    uploader: z.string().nullable().optional(),
    /** import only: the upload is anonymous although `uploader_id` is known. */
    anonymous: z.boolean().default(false),
    width: z.number().int().positive().optional(),
    height: z.number().int().positive().optional(),
    size: count.optional(),
    orig_size: count.optional(),
    mime_type: z.enum(imageMimeTypes).optional(),
    format: z.enum(imageFormats).optional(),
    aspect_ratio: z.number().positive().optional(),
    duration: z.number().min(0).nullable().optional(),
    animated: z.boolean().optional(),
    sha512_hash: sha512.optional(),
    orig_sha512_hash: sha512.optional(),
    upvotes: count.default(0),
    downvotes: count.default(0),
    score: z.number().int().optional(),
    faves: count.default(0),
    hides: count.default(0),
    comment_count: count.default(0),
    processed: z.boolean().optional(),
    thumbnails_generated: z.boolean().optional(),
    intensities: intensitiesSchema.nullable().optional(),
    // Shown by the API, derived here: accepted and ignored.
    wilson_score: z.number().optional(),
    representations: z.record(z.string(), z.string()).optional(),
    view_url: z.string().optional(),
    spoilered: z.boolean().optional(),
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

/** What comments and posts share: the author as shown, the text, and when it was written and edited. */
const authoredText = {
  author: z.string().nullable().optional(),
  avatar: z.string().optional(),
  /** null: the text is hidden. */
  body: z.string().max(300_000).nullable(),
  created_at: datetime,
  updated_at: datetime.optional(),
  edited_at: datetime.nullable().default(null),
  edit_reason: z.string().nullable().default(null),
};

export const commentSchema = z.strictObject({
  id,
  image_id: id,
  user_id: id.nullable().default(null),
  ...authoredText,
  /** import only. */
  anonymous: z.boolean().default(false),
  /** import only: why a hidden comment was hidden. */
  deletion_reason: z.string().optional(),
});

export const forumSchema = z.strictObject({
  /** import only (the API names forums by short name). */
  id: id.optional(),
  name: z.string().min(1),
  short_name: z.string().regex(/^[a-z0-9_-]+$/i, 'letters, digits, - and _ only'),
  description: z.string().default(''),
  topic_count: count.default(0),
  post_count: count.default(0),
  /** import only. */
  access_level: z.enum(['normal', 'assistant', 'staff']).default('normal'),
});

export const topicSchema = z.strictObject({
  /** import only. */
  id: id.optional(),
  /** Short name of the topic's forum. */
  forum: z.string().min(1),
  slug: z.string().regex(/^[a-z0-9-]+$/, 'lowercase letters, digits and - only'),
  title: z.string().min(1).max(300),
  post_count: count.default(0),
  view_count: count.default(0),
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

export const postSchema = z.strictObject({
  id,
  /** Slug of the post's topic. */
  topic: z.string().min(1),
  /** Short name of the topic's forum, needed when two forums have a topic with that slug. */
  forum: z.string().min(1).optional(),
  /** import only: position in the topic from 0 (default: by creation time). */
  topic_position: count.optional(),
  ...authoredText,
  user_id: id.nullable().default(null),
  /** import only. */
  anonymous: z.boolean().default(false),
});

export const gallerySchema = z
  .strictObject({
    id,
    title: z.string().min(1).max(100),
    thumbnail_id: id,
    spoiler_warning: z.string().default(''),
    description: z.string().default(''),
    user: z.string().nullable().optional(),
    user_id: id.optional(),
    creator: z.string().nullable().optional(),
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

export const filterSchema = z
  .strictObject({
    id,
    name: z.string().min(1).max(100),
    description: z.string().max(10_000).default(''),
    user_id: id.nullable().default(null),
    user_count: count.default(0),
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
