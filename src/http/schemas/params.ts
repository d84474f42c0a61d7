/**
 * Query and path parameters of every route: what a client should send. The server reads them
 * leniently, as the reference does (see the descriptions): a malformed paging or filter value
 * falls back to its default rather than failing, and unknown parameters are ignored. The
 * per-route objects (`routeQuery`, `routePath`) are what the OpenAPI document lists.
 */
import { z } from 'zod';
import { DEFAULT_DISTANCE, MAX_LIMIT } from '../../contexts/images/reverse-search.js';
import { SEARCH_INDEXES } from '../../search/explain.js';
import { IMAGE_SORT_FIELDS } from '../../search/requests/image-sort.js';
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from '../middleware/paging.js';
import { id } from './common.js';

// ---------------------------------------------------------------------------------------------
// Query parameters
// ---------------------------------------------------------------------------------------------

export const KeyParam = z
  .string()
  .meta({
    id: 'Key',
    description:
      'API key of the caller, from the account settings. Optional except for `POST /images` and `GET /filters/user`; without it (or with an unknown key) the request is anonymous. A key of a deactivated or unconfirmed account is refused with 403.',
  });

export const FilterIdParam = id().meta({
  id: 'FilterId',
  description:
    'Id of a filter to see the answer through instead of the current one (the key user\'s filter, else the system filter `Default`). Ignored when the caller may not use that filter (system, public and own filters are usable) or when it is not an id.',
});

export const PageParam = z
  .int()
  .min(1)
  .max(MAX_PAGE)
  .default(1)
  .meta({
    id: 'Page',
    description:
      'Page number, from 1. Read like a leading integer (`2abc` is 2); empty, invalid or below 1 is the first page. Past the last page the list is empty and `total` still counts every match.',
  });

export const PerPageParam = z
  .int()
  .min(1)
  .max(MAX_PER_PAGE)
  .default(DEFAULT_PER_PAGE)
  .meta({
    id: 'PerPage',
    description: `Results per page, 1 to ${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE} (for image searches by a key user: their own setting). Values outside the range are clamped; invalid ones give the default.`,
  });

export const QueryParam = z
  .string()
  .meta({
    id: 'Query',
    description:
      'Search expression in the search language (see the description of this API). Missing or empty matches nothing (200 with an empty list); `*` matches everything. Given twice or as `q[]=`, or when it does not compile: 400 with the parser message.',
    examples: ['safe, solo', 'artist:example || (cute -sad)', 'created_at.gte:3 days ago, score.gt:100'],
  });

export const SortFieldParam = z
  .string()
  .default('first_seen_at')
  .meta({
    id: 'SortField',
    description: `Sort field of image searches: one of ${IMAGE_SORT_FIELDS.map((f) => `\`${f}\``).join(', ')}; \`_score\` (relevance, with boosts); \`random\` or \`random:<seed>\`; \`gallery_id:<id>\` (gallery order). Anything else sorts by \`first_seen_at\`. Ties are broken by id.`,
    examples: ['created_at', 'score', 'random:42', 'gallery_id:7'],
  });

export const SortDirectionParam = z
  .enum(['desc', 'asc'])
  .default('desc')
  .meta({ id: 'SortDirection', description: 'Sort direction of image searches; anything but `asc` is `desc`.' });

export const DeletedParam = z
  .enum(['1', 'only', 'deleted'])
  .meta({
    id: 'Deleted',
    description:
      'Moderators and admins only (ignored for anyone else): `1` includes hidden images, `only` lists only hidden images, `deleted` only hidden images that were not merged.',
  });

export const HiddenParam = z
  .enum(['1'])
  .meta({ id: 'Hidden', description: "`1`: key users also get the images they hid themselves (left out otherwise)." });

export const ImageUrlParam = z
  .string()
  .meta({
    id: 'ImageUrl',
    description:
      'URL of an image file to reverse-search: https, on a public address. It may also be given in the body (JSON or form field `url`), or the file itself as a multipart field `image`.',
  });

export const DistanceParam = z
  .number()
  .min(0)
  .max(1)
  .default(DEFAULT_DISTANCE)
  .meta({
    id: 'Distance',
    description: `How far matches may be: each quadrant intensity within 3·distance, the aspect ratio within distance. Read as a leading decimal number (\`.3\` is 0.3, junk is 0); empty or absent is ${DEFAULT_DISTANCE}; clamped to 0..1.`,
  });

export const LimitParam = z
  .int()
  .min(1)
  .max(MAX_LIMIT)
  .meta({
    id: 'Limit',
    description: `Most matches to return, 1 to ${MAX_LIMIT} (absent: up to 50, all counted in \`total\`). Any other value gives the empty result. Ignored by every other route.`,
  });

export const OembedUrlParam = z
  .string()
  .meta({
    id: 'OembedUrl',
    description:
      'An image page URL (`…/images/123`, `…/123`) or a file URL of the image (`…/img/view/2024/5/1/123.png`); only the path is read. 404 when no image id is found, or the image is unknown or hidden.',
    examples: ['https://example.org/images/123'],
  });

export const IndexParam = z
  .enum(SEARCH_INDEXES)
  .meta({ id: 'SearchIndex', description: 'The index whose fields the query is compiled with.' });

/** Every query parameter, by name. */
export const queryParams = {
  key: KeyParam,
  filter_id: FilterIdParam,
  page: PageParam,
  per_page: PerPageParam,
  q: QueryParam,
  sf: SortFieldParam,
  sd: SortDirectionParam,
  del: DeletedParam,
  hidden: HiddenParam,
  url: ImageUrlParam,
  distance: DistanceParam,
  limit: LimitParam,
  index: IndexParam,
} as const;

export type QueryParamName = keyof typeof queryParams;

// ---------------------------------------------------------------------------------------------
// Path parameters
// ---------------------------------------------------------------------------------------------

const pathId = (what: string) =>
  id().meta({ description: `${what} id. Anything but a decimal id within 1..2147483647 is 404.` });
const pathText = (description: string) => z.string().min(1).max(1000).meta({ description });

export const pathParams = {
  image_id: pathId('Image'),
  comment_id: pathId('Comment'),
  post_id: pathId('Post'),
  user_id: pathId('User'),
  filter_id: pathId('Filter'),
  tag_id: pathText('Tag slug (not the name, not the numeric id), percent-encoded: `artist-colon-example`, `pegasus+pony`.'),
  short_name: pathText('Short name of the forum.'),
  topic_slug: pathText('Slug of the topic.'),
} as const;

export type PathParamName = keyof typeof pathParams;

// ---------------------------------------------------------------------------------------------
// Per route
// ---------------------------------------------------------------------------------------------

export const SubmissionUrlParam = z
  .string()
  .meta({
    id: 'SubmissionUrl',
    description: 'Direct https link to the image file; read from the query only when the JSON body has no `url`.',
  });

const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v.optional()])) as { [K in keyof T]: z.ZodOptional<T[K]> };

const { key, filter_id, page, per_page, q, sf, sd, del, hidden, distance, limit, index } = queryParams;

/**
 * The query parameters each kind of route reads. Every route also accepts `key` and
 * `filter_id` and ignores parameters it does not know (`limit` from some clients, empty ones).
 */
export const routeQuery = {
  /** Single objects. */
  show: z.strictObject(optional({ key, filter_id })),
  /** Lists paged from the database (forums, topics, topic posts, system filters). */
  paged: z.strictObject(optional({ key, page, per_page })),
  /** `GET /filters/user`: the key is required. */
  userFilters: z.strictObject({ key, ...optional({ page, per_page }) }),
  oembed: z.strictObject({ url: OembedUrlParam.optional(), ...optional({ key }) }),
  searchImages: z.strictObject(optional({ key, filter_id, page, per_page, q, sf, sd, del, hidden })),
  search: z.strictObject(optional({ key, filter_id, page, per_page, q })),
  searchExplain: z.strictObject({ index, ...optional({ key, filter_id, q }) }),
  reverse: z.strictObject(optional({ key, url: ImageUrlParam, distance, limit })),
  /** `POST /images`: the key is required. */
  submission: z.strictObject({ key, url: SubmissionUrlParam.optional() }),
} as const;

export type RouteQueryKind = keyof typeof routeQuery;

// ---------------------------------------------------------------------------------------------
// Request bodies
// ---------------------------------------------------------------------------------------------

const bodyText = (description: string) => z.string().nullish().meta({ description });

export const SubmissionBody = z
  .looseObject({
    url: bodyText('Direct https link to the image file (required here or in the query).'),
    image: z
      .looseObject({
        description: bodyText('Description, in the site markup.'),
        tag_input: bodyText('Tags separated by commas; must include a rating tag.'),
        source_url: bodyText('Source URL of the image.'),
        sources: z
          .union([z.array(z.string()), z.record(z.string(), z.looseObject({ source: z.string().nullish() }))])
          .nullish()
          .meta({ description: 'More source URLs: a list, or the reference\'s map `{"0": {"source": "…"}}`.' }),
        anonymous: z
          .union([z.boolean(), z.enum(['true', 'false', '1', '0'])])
          .nullish()
          .meta({ description: 'Upload without showing the uploader.' }),
      })
      .nullish()
      .meta({ description: 'Metadata of the image.' }),
  })
  .meta({ id: 'SubmissionBody', description: 'An image submission. Fields of the wrong type are answered 400 `{"errors": {field: ["is invalid"]}}`.' });

export const ReverseSearchBody = z
  .looseObject({
    url: z.string().optional().meta({ description: 'URL of the image file (when not in the query).' }),
    distance: z.union([z.string(), z.number()]).optional().meta({ description: 'As the `distance` query parameter.' }),
    limit: z.union([z.string(), z.number()]).optional().meta({ description: 'As the `limit` query parameter.' }),
  })
  .meta({ id: 'ReverseSearchBody', description: 'Reverse-search parameters given in a JSON or form body; query parameters win.' });

export const ReverseSearchUpload = z
  .looseObject({
    image: z.string().optional().meta({ description: 'The image file (also accepted as `image[image]`).', contentMediaType: 'application/octet-stream' }),
    url: z.string().optional(),
    distance: z.string().optional(),
    limit: z.string().optional(),
  })
  .meta({ id: 'ReverseSearchUpload', description: 'A multipart reverse search: the file itself, or the parameters as form fields.' });
