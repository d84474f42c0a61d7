/**
 * Query and path parameters of every route: what the OpenAPI document lists, and what the routes
 * read (http/validate.ts runs these schemas as Hono validators). The server reads them leniently,
 * as the reference does (see the descriptions): a malformed paging or filter value falls back to
 * its default rather than failing, a parameter given twice is read from its first value, and
 * unknown parameters are ignored. Each lenient reader is a `z.preprocess` in front of the schema
 * of the values it yields, so the document shows the values a client should send.
 */
import { z } from 'zod';
import { DEFAULT_DISTANCE, MAX_LIMIT, parseDistance, parseLimit } from '../../contexts/images/reverse-search.js';
import { indexNames } from '../../search/indexes/definition.js';
import { IMAGE_SORT_FIELDS } from '../../search/requests/image-sort.js';
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PER_PAGE } from '../middleware/paging.js';
import { INT32_MAX } from '../../db/int32.js';
import { id } from './common.js';

// ---------------------------------------------------------------------------------------------
// Reading raw values
// ---------------------------------------------------------------------------------------------

/** A query value as the validators hand it over: one string, or every value of a repeated name. */
type Raw = unknown;

/** The first value of a parameter given more than once (`?page=2&page=3` reads 2). */
export const first = (value: Raw): string | undefined => {
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' ? one : undefined;
};

/** The first value read by `schema`: repeated parameters count once. */
export const single = <T extends z.ZodType>(schema: T) => z.preprocess(first, schema);

/**
 * Elixir's `Integer.parse` as the reference's pagination uses it: an optional sign and the
 * leading digits (`"2abc"` → 2); undefined when there are none. Values beyond the safe-integer
 * range saturate, which the callers clamp anyway.
 */
export function integerParsePrefix(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^([+-]?)(\d+)/.exec(value);
  if (!m) return undefined;
  const digits = m[2]!.replace(/^0+(?=\d)/, '');
  const n = digits.length > 15 ? Number.MAX_SAFE_INTEGER : Number(digits);
  return m[1] === '-' ? -n : n;
}

const clamp = (n: number, min: number, max: number) => Math.min(Math.max(n, min), max);

/** A record id: decimal digits only, within PostgreSQL's `integer`; anything else fails. */
const decimalId = (value: Raw): unknown => {
  const text = first(value);
  return text !== undefined && /^\d{1,10}$/.test(text) ? Number(text) : value;
};

/** An id written in decimal (`007` is 7; `1.0`, `+1`, `1e3`, `0`, `2147483648` fail). */
export const RecordId = z.preprocess(decimalId, id());

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text PostgreSQL can store and compare: no NUL, no lone surrogates. */
const storable = (text: string) => !text.includes('\0') && !LONE_SURROGATE.test(text);

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

/** Read as undefined when it is not an id: the current filter applies. */
export const FilterIdParam = z.preprocess((value) => RecordId.safeParse(value).data, id().optional()).meta({
  id: 'FilterId',
  description:
    'Id of a filter to see the answer through instead of the current one (the key user\'s filter, else the system filter `Default`). Ignored when the caller may not use that filter (system, public and own filters are usable) or when it is not an id.',
});

/** `page` as its schema reads it (the limits read it too, without running the schema). */
export const readPage = (value: Raw): number => clamp(integerParsePrefix(first(value)) ?? 1, 1, MAX_PAGE);

/** `per_page` as its schema reads it: undefined when absent or invalid. */
export const readPerPage = (value: Raw): number | undefined => {
  const n = integerParsePrefix(first(value));
  return n === undefined ? undefined : clamp(n, 1, MAX_PER_PAGE);
};

export const PageParam = z
  .preprocess(readPage, z.int().min(1).max(MAX_PAGE))
  .default(1)
  .meta({
    id: 'Page',
    description:
      'Page number, from 1. Read like a leading integer (`2abc` is 2); empty, invalid or below 1 is the first page. Past the last page the list is empty and `total` still counts every match.',
  });

/** Read as undefined when absent or invalid: the route's default applies (a key user's setting for image searches). */
export const PerPageParam = z
  .preprocess(readPerPage, z.int().min(1).max(MAX_PER_PAGE).optional())
  .meta({
    id: 'PerPage',
    default: DEFAULT_PER_PAGE,
    description: `Results per page, 1 to ${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE} (for image searches by a key user: their own setting). Values outside the range are clamped; invalid ones give the default.`,
  });

export const QUERY_NOT_A_STRING = 'search query is not a string';

/** Given twice (a list), it is not a string: 400 like the reference's searches. */
export const QueryParam = z
  .string({ error: QUERY_NOT_A_STRING })
  .meta({
    id: 'Query',
    description:
      'Search expression in the search language (see the description of this API). Missing or empty matches nothing (200 with an empty list); `*` matches everything. Given twice or as `q[]=`, or when it does not compile: 400 with the parser message.',
    examples: ['safe, solo', 'artist:example || (cute -sad)', 'created_at.gte:3 days ago, score.gt:100'],
  });

export const SortFieldParam = single(z.string())
  .default('first_seen_at')
  .meta({
    id: 'SortField',
    description: `Sort field of image searches: one of ${IMAGE_SORT_FIELDS.map((f) => `\`${f}\``).join(', ')}; \`_score\` (relevance, with boosts); \`random\` or \`random:<seed>\`; \`gallery_id:<id>\` (gallery order). Anything else sorts by \`first_seen_at\`. Ties are broken by id.`,
    examples: ['created_at', 'score', 'random:42', 'gallery_id:7'],
  });

export const SortDirectionParam = z
  .preprocess((value) => (first(value) === 'asc' ? 'asc' : 'desc'), z.enum(['desc', 'asc']))
  .default('desc')
  .meta({ id: 'SortDirection', description: 'Sort direction of image searches; anything but `asc` is `desc`.' });

/** One of `values`, else undefined: unknown values are ignored. */
const oneOf = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((value) => {
    const text = first(value);
    return (values as readonly string[]).includes(text ?? '') ? text : undefined;
  }, z.enum(values).optional());

export const DeletedParam = oneOf(['1', 'only', 'deleted'])
  .meta({
    id: 'Deleted',
    description:
      'Moderators and admins only (ignored for anyone else): `1` includes hidden images, `only` lists only hidden images, `deleted` only hidden images that were not merged.',
  });

export const HiddenParam = oneOf(['1'])
  .meta({ id: 'Hidden', description: "`1`: key users also get the images they hid themselves (left out otherwise)." });

export const ImageUrlParam = single(z.string())
  .meta({
    id: 'ImageUrl',
    description:
      'URL of an image file to reverse-search: https, on a public address. It may also be given in the body (JSON or form field `url`), or the file itself as a multipart field `image`.',
  });

export const DistanceParam = z
  .preprocess((value) => parseDistance(Array.isArray(value) ? value[0] : value), z.number().min(0).max(1))
  .default(DEFAULT_DISTANCE)
  .meta({
    id: 'Distance',
    description: `How far matches may be: each quadrant intensity within 3·distance, the aspect ratio within distance. Read as a leading decimal number (\`.3\` is 0.3, junk is 0); empty or absent is ${DEFAULT_DISTANCE}; clamped to 0..1.`,
  });

/** Absent or empty is undefined (no limit); an invalid value fails, and the search answers nothing. */
export const LimitParam = z
  .preprocess((value) => {
    const limit = parseLimit(Array.isArray(value) ? value[0] : value);
    return limit === null ? Number.NaN : limit;
  }, z.int().min(1).max(MAX_LIMIT).optional())
  .meta({
    id: 'Limit',
    description: `Most matches to return, 1 to ${MAX_LIMIT} (absent: up to 50, all counted in \`total\`). Any other value gives the empty result. Ignored by every other route.`,
  });

export const OembedUrlParam = single(z.string())
  .meta({
    id: 'OembedUrl',
    description:
      'An image page URL (`…/images/123`, `…/123`) or a file URL of the image (`…/img/view/2024/5/1/123.png`); only the path is read. 404 when no image id is found, or the image is unknown or hidden.',
    examples: ['https://example.org/images/123'],
  });

const KNOWN_INDEXES = indexNames.join(', ');

/** Required: missing or unknown is 400 with the list of indexes. */
export const IndexParam = single(
  z.enum(indexNames, {
    error: (issue) =>
      issue.input === undefined
        ? `index is required; one of: ${KNOWN_INDEXES}`
        : `unknown index \`${String(issue.input)}'; one of: ${KNOWN_INDEXES}`,
  }),
).meta({ id: 'SearchIndex', description: 'The index whose fields the query is compiled with.' });

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

/** The schemas made by `pathId`: parameters that `pathIdValue` reads. */
const idSchemas = new WeakSet<z.ZodType>();
const pathId = (what: string) => {
  const schema = z.preprocess(decimalId, id()).meta({ description: `${what} id. Anything but a decimal id within 1..2147483647 is 404.` });
  idSchemas.add(schema);
  return schema;
};

/**
 * An id path parameter's value as its schema reads it (decimal digits only, within 1..2147483647),
 * else undefined: the routes of single records read it on every request, and the schema's
 * preprocess and checks cost more than the test itself.
 */
export function pathIdValue(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d{1,10}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= 1 && n <= INT32_MAX ? n : undefined;
}
const pathText = (description: string) => z.string().min(1).max(1000).refine(storable).meta({ description });

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

/** Whether a path parameter is a record id (`pathIdValue` reads it as its schema does). */
export const isIdPathParam = (name: PathParamName): boolean => idSchemas.has(pathParams[name]);

// ---------------------------------------------------------------------------------------------
// Per route
// ---------------------------------------------------------------------------------------------

export const SubmissionUrlParam = single(z.string())
  .meta({
    id: 'SubmissionUrl',
    description: 'Direct https link to the image file; read from the query only when the JSON body has no `url`.',
  });

/** Parameters a client may leave out; those with a default keep it (absent reads the default). */
export const optional = <T extends Record<string, z.ZodType>>(shape: T) =>
  Object.fromEntries(Object.entries(shape).map(([k, v]) => [k, v instanceof z.ZodDefault ? v : v.optional()])) as {
    [K in keyof T]: T[K] extends z.ZodDefault ? T[K] : z.ZodOptional<T[K]>;
  };

const { filter_id, page, per_page, q, sf, sd, del, hidden, distance, limit } = queryParams;

/** `q[]=…` or `q[k]=…` makes `q` a list or a map: not a string either. */
export const searchQuery = <T extends z.ZodRawShape>(shape: T) =>
  z.looseObject(shape).refine((params) => !Object.keys(params).some((name) => name.startsWith('q[')), { error: QUERY_NOT_A_STRING });

/**
 * The query parameters each kind of route reads. `key` is not listed: it is the security scheme,
 * read by middleware/auth.ts for every route. Parameters a route does not know are ignored
 * (`limit` from some clients, empty ones).
 */
export const routeQuery = {
  /** Single objects. */
  show: z.object(optional({ filter_id })),
  /** Lists paged from the database (forums, topics, topic posts, system and user filters). */
  paged: z.object(optional({ page, per_page })),
  oembed: z.object({ url: OembedUrlParam.optional() }),
  searchImages: searchQuery(optional({ filter_id, page, per_page, q, sf, sd, del, hidden })),
  search: searchQuery(optional({ filter_id, page, per_page, q })),
  /** Read from the query, else from the body. */
  reverse: z.object(optional({ url: ImageUrlParam, distance, limit })),
  /** `POST /images`: `url` when the JSON body has none. */
  submission: z.object({ url: SubmissionUrlParam.optional() }),
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
