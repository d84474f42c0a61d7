/**
 * The envelopes every answer comes in (spec "Operations"): one object under its singular name,
 * lists under the plural with `total`, and search lists with `interactions` too.
 */
import { z } from 'zod';
import { indexNames } from '../../search/indexes/definition.js';
import { count } from './common.js';
import {
  Comment,
  Filter,
  Forum,
  Gallery,
  ImageOrHidden,
  Interaction,
  Post,
  Profile,
  Tag,
  Topic,
  WithheldComment,
  WithheldPost,
} from './resources.js';
import { ExplainImage, UnknownName } from './workbench.js';

const total = () => count().meta({ description: 'Number of matching objects over all pages.' });
const interactions = () =>
  z.array(Interaction).meta({ description: "The caller's hides, faves and votes on the listed images; always empty for anonymous callers." });
const noInteractions = () =>
  z.array(Interaction).max(0).meta({ description: 'Always empty here (kept for clients that read it on every search).' });

export const ImageResponse = z
  .strictObject({ image: ImageOrHidden, interactions: interactions() })
  .meta({ id: 'ImageResponse', description: 'One image.' });

export const ImageListResponse = z
  .strictObject({ images: z.array(ImageOrHidden), interactions: interactions(), total: total() })
  .meta({ id: 'ImageListResponse', description: 'A page of images.' });

export const CommentResponse = z.strictObject({ comment: Comment }).meta({ id: 'CommentResponse', description: 'One comment.' });

export const CommentListResponse = z
  .strictObject({
    comments: z
      .array(z.union([Comment, WithheldComment, z.null()]))
      .meta({ description: 'Comments; a comment destroyed after it was indexed is a null entry.' }),
    interactions: noInteractions(),
    total: total(),
  })
  .meta({ id: 'CommentListResponse', description: 'A page of comments, newest first.' });

export const PostResponse = z.strictObject({ post: Post }).meta({ id: 'PostResponse', description: 'One forum post.' });

export const TopicPostListResponse = z
  .strictObject({
    posts: z.array(Post).meta({ description: 'Posts by position in the topic; destroyed posts are left out.' }),
    total: count().meta({ description: 'Posts in the topic.' }),
  })
  .meta({ id: 'TopicPostListResponse', description: 'A page of the posts of a topic.' });

export const PostListResponse = z
  .strictObject({
    posts: z
      .array(z.union([Post, WithheldPost, z.null()]))
      .meta({ description: 'Posts; a post destroyed after it was indexed is a null entry.' }),
    interactions: noInteractions(),
    total: total(),
  })
  .meta({ id: 'PostListResponse', description: 'A page of forum posts, newest first.' });

export const ForumResponse = z.strictObject({ forum: Forum }).meta({ id: 'ForumResponse', description: 'One forum.' });

export const ForumListResponse = z
  .strictObject({ forums: z.array(Forum), total: total() })
  .meta({ id: 'ForumListResponse', description: 'The forums, by name.' });

export const TopicResponse = z.strictObject({ topic: Topic }).meta({ id: 'TopicResponse', description: 'One topic.' });

export const TopicListResponse = z
  .strictObject({ topics: z.array(Topic), total: total() })
  .meta({ id: 'TopicListResponse', description: 'A page of topics: sticky ones first, then by last reply.' });

export const TagResponse = z.strictObject({ tag: Tag }).meta({ id: 'TagResponse', description: 'One tag.' });

export const TagListResponse = z
  .strictObject({ tags: z.array(Tag), interactions: noInteractions(), total: total() })
  .meta({ id: 'TagListResponse', description: 'A page of tags, by image count.' });

export const ProfileResponse = z.strictObject({ user: Profile }).meta({ id: 'ProfileResponse', description: 'One user profile.' });

export const FilterResponse = z.strictObject({ filter: Filter }).meta({ id: 'FilterResponse', description: 'One filter.' });

export const FilterListResponse = z
  .strictObject({ filters: z.array(Filter), total: total() })
  .meta({ id: 'FilterListResponse', description: 'A page of filters, by id.' });

export const FilterSearchResponse = z
  .strictObject({ filters: z.array(Filter), interactions: noInteractions(), total: total() })
  .meta({ id: 'FilterSearchResponse', description: 'A page of filters, by name.' });

export const GalleryListResponse = z
  .strictObject({ galleries: z.array(Gallery), interactions: noInteractions(), total: total() })
  .meta({ id: 'GalleryListResponse', description: 'A page of galleries, newest first.' });

export const ExplainResponse = z
  .strictObject({
    index: z.enum(indexNames).meta({ description: 'The index the query was compiled for.' }),
    query: z.looseObject({}).meta({ description: 'The compiled query, as OpenSearch query DSL.' }),
    image: ExplainImage.optional().meta({ description: 'With `image_id` (images only): which clauses that image matches.' }),
    did_you_mean: z.array(UnknownName).optional().meta({ description: 'Images only: the query\'s tags that no tag has and its misspelt field names, each with the nearest names that exist (empty when every name is known).' }),
  })
  .meta({ id: 'ExplainResponse', description: 'What a search query compiles to.' });
