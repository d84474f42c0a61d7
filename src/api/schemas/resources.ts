/**
 * The response objects of the spec ("Resources and their fields"), one schema per resource.
 *
 * Nullability is the spec's. Where the spec leaves it open ("if any", "not shown") or where the
 * server sends null on purpose, the schema follows the reference and the shared shape checker
 * (test/support/spec-shapes.ts), and the field's description says when the value is null:
 * - `uploader` (image) is null for anonymous uploads, like `uploader_id`;
 * - comment and post `body` is null for content hidden by staff (the edit fields then too);
 * - tag `aliased_tag`, `namespace`, `category` and `spoiler_image_uri` are null when unset;
 * - gallery `user`/`user_id` (and `creator`/`creator_id`) are nullable as in the reference.
 * Fields beyond the spec's tables that we send on purpose (image `orig_size` and `hides`, the
 * gallery's `creator` pair, the oEmbed photo fields, image `representations.webm`/`mp4`) are
 * listed here too: the objects are strict, so any other field is drift.
 */
import { z } from 'zod';
import { imageFormats, imageMimeTypes } from '../../db/schema/images.js';
import { dnpTypes, tagCategories } from '../../db/schema/tags.js';
import { linkStates, roles } from '../../db/schema/users.js';
import { count, datetime, httpUrl, httpsUrl, id } from './common.js';

const d = (description: string) => ({ description });

// ---------------------------------------------------------------------------------------------
// Images
// ---------------------------------------------------------------------------------------------

const representationUrl = (description: string) => httpUrl().meta(d(description));

export const Representations = z
  .strictObject({
    full: representationUrl('The original file (short view URL).'),
    large: representationUrl('At most 1280×1024, or the original when smaller.'),
    medium: representationUrl('At most 800×600, or the original when smaller.'),
    small: representationUrl('At most 320×240, or the original when smaller.'),
    tall: representationUrl('At most 1024×4096, or the original when smaller.'),
    thumb: representationUrl('At most 250×250, or the original when smaller.'),
    thumb_small: representationUrl('At most 150×150, or the original when smaller.'),
    thumb_tiny: representationUrl('At most 50×50, or the original when smaller.'),
    webm: representationUrl('GIF images only: the animation as WebM.').optional(),
    mp4: representationUrl('GIF images only: the animation as MP4.').optional(),
  })
  .meta({
    id: 'Representations',
    description:
      'Absolute URLs of the image files by version; all eight versions are always present. Clients must not load them while `thumbnails_generated` is false.',
  });

export const Intensities = z
  .strictObject({ nw: z.number(), ne: z.number(), sw: z.number(), se: z.number() })
  .meta({ id: 'Intensities', description: 'Mean luma of the four quadrants of the image, used to find duplicates.' });

export const Image = z
  .strictObject({
    id: id().meta(d('Image id.')),
    created_at: datetime().meta(d('Creation time.')),
    updated_at: datetime().meta(d('Last update time.')),
    first_seen_at: datetime().meta(d('When first seen, before any duplicate merging.')),
    width: count().meta(d('Width in pixels.')),
    height: count().meta(d('Height in pixels.')),
    mime_type: z.enum(imageMimeTypes).meta(d('MIME type of the file.')),
    size: count().meta(d('File size in bytes.')),
    orig_size: count().meta(d('Size in bytes of the file as uploaded (beyond the spec, as the reference sends it).')),
    duration: z.number().min(0).meta(d('Seconds the image lasts if animated; otherwise the constant 0.04.')),
    animated: z.boolean().meta(d('Whether the image is animated.')),
    format: z.enum(imageFormats).meta(d('File extension.')),
    aspect_ratio: z.number().meta(d('Width divided by height.')),
    name: z.string().meta(d('File name the image was uploaded with.')),
    sha512_hash: z.string().meta(d('SHA-512 of the file after processing.')),
    orig_sha512_hash: z.string().meta(d('SHA-512 of the file as uploaded.')),
    tags: z.array(z.string()).meta(d('Tag names, in display order.')),
    tag_ids: z.array(id()).meta(d('Tag ids, in the order of `tags`.')),
    tag_count: count().meta(d('Number of tags.')),
    uploader: z.string().nullable().meta(d('Uploader name; null if uploaded anonymously or without an account.')),
    uploader_id: id().nullable().meta(d('Uploader id; null if uploaded anonymously or without an account.')),
    wilson_score: z
      .number()
      .meta(d('Lower bound of the Wilson score interval of upvotes and downvotes at 99.5% confidence; 0 without upvotes.')),
    intensities: Intensities.nullable().meta(d('Quadrant intensities used for deduplication; null until generated.')),
    score: z.int().meta(d('Upvotes minus downvotes.')),
    upvotes: count().meta(d('Number of upvotes.')),
    downvotes: count().meta(d('Number of downvotes.')),
    faves: count().meta(d('Number of faves.')),
    hides: count().meta(d('Number of users hiding the image (beyond the spec, as the reference sends it).')),
    comment_count: count().meta(d('Number of comments.')),
    description: z.string().meta(d('Description, in the site markup.')),
    source_url: z.string().meta(d('Deprecated: the first source URL, or "" when there is none. Use `source_urls`.')),
    source_urls: z.array(z.string()).meta(d('All source URLs; may be empty.')),
    view_url: httpUrl().meta(d('Absolute view URL of the file, including the tags.')),
    representations: Representations,
    spoilered: z.boolean().meta(d('Whether the current filter spoilers (or hides) the image.')),
    thumbnails_generated: z
      .boolean()
      .meta(d('Whether thumbnail generation has finished. While false, clients must not load `view_url` or `representations`.')),
    processed: z.boolean().meta(d('Whether optimization has finished. True while `thumbnails_generated` stays false: processing gave up on the file after its every attempt (an operator may retry it).')),
    deletion_reason: z.string().nullable().meta(d('Hide reason; only set for images deleted for a rule violation.')),
    duplicate_of: id().nullable().meta(d('Id of the image this one was merged into; only set for merged images.')),
    hidden_from_users: z.boolean().meta(d('True if the image is merged or deleted (then it is sent as a `HiddenImage`).')),
  })
  .meta({
    id: 'Image',
    description: 'A visible image. A merged or deleted image is sent as a `HiddenImage` instead.',
  });

export const HiddenImage = z
  .strictObject({
    id: Image.shape.id,
    created_at: Image.shape.created_at,
    updated_at: Image.shape.updated_at,
    first_seen_at: Image.shape.first_seen_at,
    deletion_reason: Image.shape.deletion_reason,
    duplicate_of: Image.shape.duplicate_of,
    hidden_from_users: z.literal(true).meta(d('Always true: the image is merged or deleted.')),
  })
  .meta({
    id: 'HiddenImage',
    description:
      'A merged or deleted image, as every view sends it: its id and times, and `duplicate_of` (merged) or `deletion_reason` (deleted). Its files are not served.',
  });

/** An image in an answer: whole, or the stub of a merged or deleted one. */
export const ImageOrHidden = z
  .union([Image, HiddenImage])
  .meta({ id: 'ImageOrHidden', description: 'An image: whole (`Image`), or the stub of a merged or deleted one (`HiddenImage`).' });

export const Interaction = z
  .strictObject({
    image_id: id(),
    user_id: id(),
    interaction_type: z.enum(['hidden', 'faved', 'voted']),
    value: z.enum(['', 'up', 'down']).meta(d('`up` or `down` for votes, else empty.')),
  })
  .meta({ id: 'Interaction', description: "One of the caller's hides, faves or votes on a listed image." });

// ---------------------------------------------------------------------------------------------
// Comments and forums
// ---------------------------------------------------------------------------------------------

const avatar = () =>
  z
    .string()
    .regex(/^(?:https?:\/\/|data:image\/)/)
    .meta(d('Avatar: an absolute URL of an uploaded avatar, or a generated `data:image/svg+xml` URI. Never null.'));

/** The fields a comment and a forum post share: author, text and times (`what` names it in the descriptions). */
const messageShape = (what: 'comment' | 'post') => ({
  user_id: id().nullable().meta(d(`Id of the author; null for anonymous ${what}s.`)),
  author: z.string().meta(d(`Author name (a generated "Background Pony #XXXX" name for anonymous ${what}s).`)),
  avatar: avatar(),
  body: z.string().nullable().meta(d(`${what === 'comment' ? 'Comment' : 'Post'} text; null when the ${what} is hidden by staff.`)),
  created_at: datetime().meta(d('Creation time.')),
  updated_at: datetime().meta(d('Last update time.')),
  edited_at: datetime().nullable().meta(d('Last edit time; null if never edited (or hidden).')),
  edit_reason: z.string().nullable().meta(d('Edit reason; null if none (or hidden).')),
});

/** The same fields of a comment or post whose image or topic is hidden: all withheld. */
const withheldMessageShape = () => ({
  user_id: z.null(),
  author: z.null(),
  avatar: avatar(),
  body: z.null(),
  created_at: z.null(),
  updated_at: z.null(),
  edited_at: z.null(),
  edit_reason: z.null(),
});

export const Comment = z
  .strictObject({
    id: id().meta(d('Comment id.')),
    image_id: id().meta(d('Id of the image commented on.')),
    ...messageShape('comment'),
  })
  .meta({ id: 'Comment', description: 'A comment on an image.' });

export const WithheldComment = z
  .strictObject({
    id: id(),
    image_id: id(),
    ...withheldMessageShape(),
  })
  .meta({
    id: 'WithheldComment',
    description: 'A comment on a hidden image, as it appears in search results: everything but the ids withheld.',
  });

export const Post = z
  .strictObject({
    id: id().meta(d('Post id.')),
    ...messageShape('post'),
  })
  .meta({ id: 'Post', description: 'A forum post.' });

export const WithheldPost = z
  .strictObject({
    id: id(),
    ...withheldMessageShape(),
  })
  .meta({
    id: 'WithheldPost',
    description: 'A post of a topic hidden after it was indexed, as it may appear in search results: everything but the id withheld.',
  });

export const Forum = z
  .strictObject({
    name: z.string().meta(d('Forum name.')),
    short_name: z.string().meta(d('Short name; identifies the forum in paths.')),
    description: z.string().meta(d('Description.')),
    topic_count: count().meta(d('Topics in the forum.')),
    post_count: count().meta(d('Posts in the forum.')),
  })
  .meta({ id: 'Forum', description: 'A forum.' });

export const Topic = z
  .strictObject({
    slug: z.string().meta(d('Identifies the topic within its forum.')),
    title: z.string().meta(d('Title.')),
    post_count: count().meta(d('Posts in the topic.')),
    view_count: count().meta(d('Views received.')),
    sticky: z.boolean().meta(d('Whether the topic is sticky.')),
    last_replied_to_at: datetime().meta(d('Time of the last reply.')),
    locked: z.boolean().meta(d('Whether the topic is locked.')),
    user_id: id().nullable().meta(d('Creator id; null if posted anonymously.')),
    author: z.string().meta(d('Creator name.')),
  })
  .meta({ id: 'Topic', description: 'A forum topic.' });

// ---------------------------------------------------------------------------------------------
// Tags, users, filters, galleries
// ---------------------------------------------------------------------------------------------

export const DnpEntry = z
  .strictObject({
    id: id(),
    dnp_type: z.enum(dnpTypes),
    conditions: z.string(),
    reason: z.string().nullable().meta(d('Null when the reason is withheld.')),
    created_at: datetime(),
  })
  .meta({ id: 'DnpEntry', description: 'A listed do-not-post entry claimed on a tag.' });

export const Tag = z
  .strictObject({
    id: id().meta(d('Tag id.')),
    name: z.string().meta(d('Tag name.')),
    slug: z.string().meta(d('Slug; identifies the tag in `/tags/{tag_id}`.')),
    description: z.string().meta(d('Long description.')),
    short_description: z.string().meta(d('Short description.')),
    images: count().meta(d('Number of images with the tag.')),
    spoiler_image_uri: httpUrl().nullable().meta(d('Spoiler image of the tag; null if none.')),
    namespace: z.string().nullable().meta(d('Namespace (`artist` in `artist:name`); null without one.')),
    name_in_namespace: z.string().meta(d('Name within the namespace.')),
    category: z.enum(tagCategories).nullable().meta(d('Category; null if none.')),
    aliased_tag: z.string().nullable().meta(d('Slug of the tag this tag is aliased to; null if not aliased.')),
    aliases: z.array(z.string()).meta(d('Slugs of the tags aliased to this tag.')),
    implied_tags: z.array(z.string()).meta(d('Slugs of the tags this tag implies.')),
    implied_by_tags: z.array(z.string()).meta(d('Slugs of the tags implying this tag.')),
    dnp_entries: z.array(DnpEntry).meta(d('Listed do-not-post entries.')),
  })
  .meta({ id: 'Tag', description: 'A tag.' });

export const Link = z
  .strictObject({
    user_id: id().meta(d('Owner of the link.')),
    created_at: datetime().meta(d('Creation time.')),
    state: z.enum(linkStates).meta(d('State of the link; only verified links are shown.')),
    tag_id: id().nullable().meta(d('Associated tag id; null if none.')),
  })
  .meta({ id: 'Link', description: 'A public, verified link of a user.' });

export const Award = z
  .strictObject({
    image_url: httpUrl().meta(d('URL of the badge image.')),
    title: z.string().meta(d('Badge title.')),
    id: id().meta(d('Id of the badge the award derives from.')),
    label: z.string().meta(d('Label.')),
    awarded_on: datetime().meta(d('When given.')),
  })
  .meta({ id: 'Award', description: 'A badge awarded to a user.' });

export const Profile = z
  .strictObject({
    id: id().meta(d('User id.')),
    name: z.string().meta(d('User name.')),
    slug: z.string().meta(d('User slug.')),
    role: z.enum(roles).meta(d('Role; `user` when the user hides their role.')),
    description: z.string().meta(d('Bio.')),
    avatar_url: httpUrl().nullable().meta(d('Avatar URL; null if no avatar is set.')),
    created_at: datetime().meta(d('Creation time.')),
    comments_count: count().meta(d('Comment count.')),
    uploads_count: count().meta(d('Upload count.')),
    posts_count: count().meta(d('Forum post count.')),
    topics_count: count().meta(d('Forum topic count.')),
    links: z.array(Link).meta(d('Public, verified links.')),
    awards: z.array(Award).meta(d('Badges, newest first.')),
  })
  .meta({ id: 'Profile', description: 'A user profile (the spec\'s "User response").' });

export const Filter = z
  .strictObject({
    id: id().meta(d('Filter id.')),
    name: z.string().meta(d('Name.')),
    description: z.string().meta(d('Description.')),
    public: z.boolean().meta(d('Public filters are usable by anyone.')),
    system: z.boolean().meta(d('System filters are usable by anyone and have no owner.')),
    user_count: count().meta(d('Users employing the filter.')),
    user_id: id().nullable().meta(d('Owner; null when the filter belongs to no user (system filters).')),
    hidden_tag_ids: z.array(id()).meta(d('Tag ids the filter hides.')),
    spoilered_tag_ids: z.array(id()).meta(d('Tag ids the filter spoilers.')),
    hidden_complex: z.string().meta(d('Hiding search expression ("" if none).')),
    spoilered_complex: z.string().meta(d('Spoilering search expression ("" if none).')),
  })
  .meta({ id: 'Filter', description: 'A filter: what it hides and what it spoilers.' });

export const Gallery = z
  .strictObject({
    id: id().meta(d('Gallery id.')),
    title: z.string().meta(d('Title.')),
    thumbnail_id: id().meta(d('Id of the cover image.')),
    spoiler_warning: z.string().meta(d('Spoiler warning.')),
    description: z.string().meta(d('Description.')),
    user: z.string().nullable().meta(d('Creator name (the legacy name every known client reads).')),
    user_id: id().nullable().meta(d('Creator id (legacy name).')),
    creator: z.string().nullable().meta(d('Creator name, as current upstream names it; same as `user`.')),
    creator_id: id().nullable().meta(d('Creator id, as current upstream names it; same as `user_id`.')),
  })
  .meta({ id: 'Gallery', description: 'A gallery. Both the legacy `user`/`user_id` and the current `creator`/`creator_id` are sent.' });

export const Oembed = z
  .strictObject({
    type: z.literal('photo').meta(d('Always `photo`.')),
    version: z.literal('1.0').meta(d('Always `1.0`.')),
    title: z.string().meta(d('Image id and tags, as in the title of the image page.')),
    author_name: z.string().meta(d('Comma-separated names of the artists (`artist:` tags).')),
    author_url: z.string().meta(d('First source URL of the image, or "".')),
    provider_name: z.string().meta(d("The service's name.")),
    provider_url: httpsUrl().meta(d("The service's base URL, https scheme.")),
    cache_age: z.literal(7200).meta(d('Always 7200 (seconds).')),
    thumbnail_url: httpUrl().meta(d('Thumbnail: the `large` version for images over 1280×1024, else the original.')),
    thumbnail_width: count(),
    thumbnail_height: count(),
    url: httpUrl().meta(d('Short view URL of the original file.')),
    width: count(),
    height: count(),
    site_id: id().meta(d('Image id.')),
    site_score: z.int().meta(d('Upvotes minus downvotes.')),
    site_comments: count().meta(d('Number of comments.')),
    site_tags: z.array(z.string()).meta(d('Tag names.')),
  })
  .meta({
    id: 'Oembed',
    description: 'The oEmbed answer for an image (not wrapped). Brand-named fields of the reference are named `site_…`.',
  });
