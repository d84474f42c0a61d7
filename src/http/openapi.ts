/**
 * The OpenAPI 3.1 document of the JSON API, built from the zod schemas of `schemas/` (component
 * schemas through `z.toJSONSchema` with the draft 2020-12 target, which is OpenAPI 3.1's schema
 * dialect). `OPERATIONS` lists every route with its parameters and the schema of each answer by
 * status; the document is derived from it and the conformance tests validate real answers
 * against the same zod schemas, so the two cannot drift apart.
 */
import { z } from 'zod';
import type { Config } from '../config.js';
import type { FieldSet, FieldSpec, FieldType } from '../../grammar/index.js';
import { queryFields, SEARCH_INDEXES, type SearchIndexName } from '../search/explain.js';
import { API_PREFIX } from './api-prefix.js';
import * as S from './schemas/index.js';

export const OPENAPI_VERSION = '3.1.0';
export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/docs';

export type HttpMethod = 'get' | 'post';

/** How an operation uses the `key` security scheme. */
export type KeyUse = 'optional' | 'required';

export interface ResponseSpec {
  description: string;
  /** The body; absent for bodiless answers (304). */
  schema?: z.ZodType;
  /** Response headers, by component name (see `HEADERS`). */
  headers?: readonly HeaderName[];
}

export interface RequestBodySpec {
  required: boolean;
  description: string;
  content: Partial<Record<'application/json' | 'application/x-www-form-urlencoded' | 'multipart/form-data', z.ZodType>>;
}

export interface OperationSpec {
  method: HttpMethod;
  /** OpenAPI path template relative to `API_PREFIX`, e.g. `/images/{image_id}`. */
  path: string;
  operationId: string;
  tag: string;
  summary: string;
  description: string;
  query: z.ZodObject;
  key: KeyUse;
  requestBody?: RequestBodySpec;
  responses: Readonly<Record<number, ResponseSpec>>;
}

// ---------------------------------------------------------------------------------------------
// Answers shared by many operations
// ---------------------------------------------------------------------------------------------

const HEADERS = {
  'Cache-Control': {
    description:
      'How long the answer may be kept: `public, max-age=N`, `private, max-age=N` when it depends on the key, `no-store` on errors. Clients must cache and respect it.',
    schema: { type: 'string' },
  },
  ETag: {
    description: 'Entity tag of the body; send it back in `If-None-Match` to get a bodiless 304 while it is unchanged.',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before trying again.', schema: { type: 'integer', minimum: 0 } },
} as const;
type HeaderName = keyof typeof HEADERS;

const cached = ['Cache-Control', 'ETag'] as const;

const ok = (schema: z.ZodType, description: string): ResponseSpec => ({ description, schema, headers: cached });

/** 403 bodies: `{"error"}` (refused key, hidden content, missing key) or a ban. */
const ForbiddenBody = z.union([S.ErrorBody, S.BanErrorBody]);

const notModified: ResponseSpec = {
  description: 'Not Modified: the `If-None-Match` entity tag still matches; no body.',
  headers: cached,
};
const notFound = (what: string): ResponseSpec => ({ description: `${what}: \`{"error": "Not found"}\`.`, schema: S.ErrorBody });
const forbidden = (extra?: string): ResponseSpec => ({
  description: `${extra ? `${extra} ` : ''}The key belongs to a deactivated or unconfirmed account, or the caller is banned (the ban body says until when and why).`,
  schema: ForbiddenBody,
});
const tooMany: ResponseSpec = {
  description: 'Too many requests: wait `Retry-After` seconds, then back off exponentially. Repeated excess leads to a ban.',
  schema: S.ErrorBody,
  headers: ['Retry-After'],
};
const internal: ResponseSpec = { description: 'Internal Error: `{"error": "Internal Error"}`; retry later with backoff.', schema: S.ErrorBody };
const queryError: ResponseSpec = {
  description: 'The search query does not compile (or `q` is not a single string): `{"error": "<parser message>"}`.',
  schema: S.ErrorBody,
};

/** The answers every read operation can give besides its own. */
const readAnswers = (own: Record<number, ResponseSpec>, forbiddenExtra?: string): Record<number, ResponseSpec> => ({
  ...own,
  304: notModified,
  403: forbidden(forbiddenExtra),
  429: tooMany,
  500: internal,
});

// ---------------------------------------------------------------------------------------------
// The search language, summarised
// ---------------------------------------------------------------------------------------------

const TYPE_LABELS: Record<FieldType, string> = {
  int: 'integers (`:`, `.gt:`, `.gte:`, `.lt:`, `.lte:`, `~` range)',
  float: 'numbers (`:`, ranges, `~` range)',
  numeric: 'ids (exact)',
  date: 'dates (`:`, ranges)',
  bool: '`true`/`false`',
  literal: 'exact text (wildcards `*` `?`, fuzzy `~N`)',
  ngram: 'full text (words, wildcards)',
  ip: 'IP addresses and CIDR ranges',
  custom: 'special (`my:faves` and the like; see above)',
};

function fieldList(set: FieldSet, tier: 'anonymous' | 'user'): string {
  const byType = new Map<FieldType, string[]>();
  for (const f of set.fields as readonly FieldSpec[]) {
    if (f.minRole !== tier) continue;
    const list = byType.get(f.type) ?? [];
    if (!list.includes(f.name)) list.push(f.name);
    byType.set(f.type, list);
  }
  return [...byType.entries()]
    .map(([type, names]) => `${names.map((n) => `\`${n}\``).join(', ')}: ${TYPE_LABELS[type]}`)
    .join('; ');
}

/** The fields of one index, for the description of its search operation. */
export function searchFieldsDescription(index: SearchIndexName): string {
  const set = queryFields[index];
  const user = fieldList(set, 'user');
  const moderators = set.fields.some((f) => f.minRole === 'moderator');
  return [
    `A term without a field searches \`${set.defaultField.name}\`${index === 'images' ? ' (tag names, aliases included)' : ''}.`,
    `Fields: ${fieldList(set, 'anonymous')}.`,
    user ? `With a key also: ${user}.` : '',
    moderators ? 'Moderators have more fields.' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

const QUERY_LANGUAGE = `## Search language (\`q\`)

- **Terms**: a bare term searches the index's default field (for images: tag names, so \`twilight sparkle\` is one tag; spaces inside a term are kept). \`field:value\` searches a field; \`field.gt:\`, \`.gte:\`, \`.lt:\`, \`.lte:\` compare numbers and dates. Field names are case-sensitive; unknown prefixes are part of the term (\`artist:name\` is a tag).
- **AND**: \`,\`, or \`AND\` / \`&&\` between spaces. **OR**: \`OR\` / \`||\` between spaces. **NOT**: \`-\` or \`!\` before a term or group, or \`NOT \`. Grouping: \`( … )\`. Precedence, loosest first: OR, AND, boost, NOT.
- **Quoting and escaping**: \`"…"\` quotes a whole term (\`\\"\` and \`\\\\\` inside); \`\\\` escapes one character (\`id\\:5\` is the tag \`id:5\`).
- **Wildcards**: \`*\` (any run) and \`?\` (one character) in text fields; \`*\` alone matches everything.
- **Fuzzy**: \`value~N\` on text; \`number~d\` is the range number ± d on numeric fields.
- **Boost**: \`term^2\` weighs a term for \`sf=_score\` (must be ≥ 0).
- **Dates**: \`YYYY[-MM[-DD[THH[:MM[:SS]]]]][Z|±HH[:MM]]\` covers the whole period written (\`created_at:2024-05\` is all of May); relative \`N units ago\` (seconds to years).
- **Special fields**: on images \`my:faves\`, \`my:upvotes\`, \`my:downvotes\`, \`my:uploads\`, \`my:hidden\`, \`my:subs\`, \`my:watched\` (with a key), \`gallery_id:N\` (images of a gallery), \`filter_id:N\` (images that filter would hide); \`my:comments\`, \`my:posts\`, \`my:galleries\`, \`my:filters\` on their indexes (with a key).
- **Errors** are 400 \`{"error": "<message>"}\` with the reference's wording, e.g. \`Imbalanced parentheses.\`, \`Expected a term.\`, \`junk at end of expression: …\`, \`range specified for <field>\`.
- An empty or missing \`q\` matches nothing; \`*\` matches everything.

${SEARCH_INDEXES.map((index) => `- **${index}**: ${searchFieldsDescription(index)}`).join('\n')}`;

function documentDescription(config: Pick<Config, 'siteName'>): string {
  return `The JSON API of ${config.siteName}, compatible with Philomena's (Derpibooru's) API: images, comments, tags, forums, user profiles, filters, galleries, search, reverse image search, oEmbed, and image submission. Anyone may use it, free of charge.

## Usage terms

1. **Cache** answers and respect their expiry: every answer carries \`Cache-Control\`; successful ones an \`ETag\` for \`If-None-Match\` (304 while unchanged).
2. **Back off** when requests fail, preferably exponentially (or stop). A 429 says how long to wait in \`Retry-After\`.
3. Abusively many or excessively expensive requests lead to a request to stop, then a **ban**; so does abuse of image submission. A banned caller gets 403 with the reason and the end of the ban.
4. Where images are shown, **credit the artist** if provided and display the **original source URL** with the image, as text or a link. A link to the image's page here is optional but recommended.
5. All URLs must use **https**.
6. To copy the whole site continuously, use the nightly database dumps instead of the API.

## Authentication

Pass the API key from your account settings as the query parameter \`key\`. It is optional except for \`POST /images\` and \`GET /filters/user\`; without it (or with an unknown key) the request is anonymous. Anonymous callers may choose a filter with \`filter_id\`. No other credential is read (cookies are ignored).

## Answers

- JSON objects wrapped in an envelope: \`{"image": …}\`, lists as \`{"images": […], "total": N}\`; search lists also carry \`interactions\`. oEmbed answers are not wrapped.
- Timestamps are RFC 3339 in UTC at second precision, ending in \`Z\`. File URLs are absolute.
- Paging: \`page\` from 1, \`per_page\` 1..50 (default 25). Past the last page the list is empty.
- Errors: \`{"error": "<message>"}\` (unknown ids: 404 \`Not found\`); a failed submission: 400 \`{"errors": {field: [messages]}}\`.
- Unknown parameters are ignored; \`key\` and \`filter_id\` are accepted everywhere.

${QUERY_LANGUAGE}`;
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

const Q = S.routeQuery;

const show = (
  path: string,
  operationId: string,
  tag: string,
  summary: string,
  description: string,
  schema: z.ZodType,
  missing: string,
  extra: Record<number, ResponseSpec> = {},
  forbiddenExtra?: string,
): OperationSpec => ({
  method: 'get',
  path,
  operationId,
  tag,
  summary,
  description,
  query: Q.show,
  key: 'optional',
  responses: readAnswers({ 200: ok(schema, summary), 404: notFound(missing), ...extra }, forbiddenExtra),
});

const list = (
  path: string,
  operationId: string,
  tag: string,
  summary: string,
  description: string,
  schema: z.ZodType,
  missing?: string,
): OperationSpec => ({
  method: 'get',
  path,
  operationId,
  tag,
  summary,
  description,
  query: Q.paged,
  key: 'optional',
  responses: readAnswers(missing ? { 200: ok(schema, summary), 404: notFound(missing) } : { 200: ok(schema, summary) }),
});

const search = (
  path: string,
  operationId: string,
  index: SearchIndexName,
  summary: string,
  description: string,
  schema: z.ZodType,
  query: z.ZodObject = Q.search,
): OperationSpec => ({
  method: 'get',
  path,
  operationId,
  tag: 'Search',
  summary,
  description: `${description}\n\n${searchFieldsDescription(index)}`,
  query,
  key: 'optional',
  responses: readAnswers({ 200: ok(schema, summary), 400: queryError }),
});

export const OPERATIONS: readonly OperationSpec[] = [
  // Images
  show(
    '/images/featured',
    'getFeaturedImage',
    'Images',
    'The featured image',
    'The most recently featured image that is not hidden.',
    S.ImageResponse,
    'No image is featured',
  ),
  show(
    '/images/{image_id}',
    'getImage',
    'Images',
    'An image',
    'Any image, hidden ones included: merged images have `duplicate_of`, deleted ones `deletion_reason`, both `hidden_from_users: true`. `spoilered` is computed with the current filter (`filter_id`).',
    S.ImageResponse,
    'Unknown image',
  ),
  {
    method: 'post',
    path: '/images',
    operationId: 'submitImage',
    tag: 'Images',
    summary: 'Submit an image by URL',
    description:
      'Fetches the file at `url` and adds it with the given tags, description and sources. The key is required; the content type must be `application/json`. Abuse leads to a ban; submissions are rate-limited per key and address and capped per day.',
    query: Q.submission,
    key: 'required',
    requestBody: { required: true, description: 'The submission.', content: { 'application/json': S.SubmissionBody } },
    responses: {
      200: { description: 'The new image.', schema: S.ImageResponse },
      400: {
        description:
          'The submission failed validation or processing: `{"errors": {field: [messages]}}` (an `image_orig_sha512_hash` message saying the value has already been taken means the image already exists); or a malformed JSON body: `{"error"}`.',
        schema: z.union([S.ImageErrorsBody, S.ErrorBody]),
      },
      401: { description: 'No valid key: `{"error": "Unauthorized"}`.', schema: S.ErrorBody },
      403: forbidden(),
      413: { description: 'The JSON body is larger than 1 MiB.', schema: S.ErrorBody },
      415: { description: 'The content type is not `application/json`.', schema: S.ErrorBody },
      429: tooMany,
      500: internal,
    },
  },
  // Comments and posts
  show(
    '/comments/{comment_id}',
    'getComment',
    'Comments',
    'A comment',
    'A comment; hidden comments have a null body.',
    S.CommentResponse,
    'Unknown or destroyed comment',
    {},
    'The comment is on a hidden image; or:',
  ),
  show(
    '/posts/{post_id}',
    'getPost',
    'Forums',
    'A forum post',
    'A post of a visible topic in a public forum.',
    S.PostResponse,
    'Unknown or destroyed post, or its topic is hidden or its forum restricted',
  ),
  // Tags, profiles, filters
  show(
    '/tags/{tag_id}',
    'getTag',
    'Tags',
    'A tag, by slug',
    'Looked up by slug only (`artist-colon-example`, not `artist:example`); aliased tags are answered as themselves.',
    S.TagResponse,
    'Unknown slug',
  ),
  show('/profiles/{user_id}', 'getProfile', 'Users', 'A user profile', 'A user profile with public links and awards.', S.ProfileResponse, 'Unknown or deactivated user'),
  show(
    '/filters/{filter_id}',
    'getFilter',
    'Filters',
    'A filter',
    'A system or public filter, one of the key user\'s own, or any filter for moderators.',
    S.FilterResponse,
    'Unknown filter, or one the caller may not see',
  ),
  list('/filters/system', 'listSystemFilters', 'Filters', 'System filters', 'Every system filter, by id.', S.FilterListResponse),
  {
    method: 'get',
    path: '/filters/user',
    operationId: 'listUserFilters',
    tag: 'Filters',
    summary: "The key user's filters",
    description: 'The filters owned by the user of `key`, by id.',
    query: Q.paged,
    key: 'required',
    responses: readAnswers({ 200: ok(S.FilterListResponse, "The key user's filters") }, 'No key, or an unknown key: `{"error": "Forbidden"}`; or:'),
  },
  // oEmbed
  {
    method: 'get',
    path: '/oembed',
    operationId: 'getOembed',
    tag: 'oEmbed',
    summary: 'oEmbed of an image',
    description: 'The oEmbed (photo) answer for an image page or file URL. Not wrapped in an envelope; cached for 7200 s.',
    query: Q.oembed,
    key: 'optional',
    responses: readAnswers({ 200: ok(S.Oembed, 'The oEmbed answer'), 404: notFound('No `url`, no image id in it, or an unknown or hidden image') }),
  },
  // Search
  search(
    '/search/images',
    'searchImages',
    'images',
    'Search images',
    'Images matching `q`, without those the current filter hides (spoilered ones are included, `spoilered: true`). Default order: `first_seen_at` descending.',
    S.ImageListResponse,
    Q.searchImages,
  ),
  search('/search', 'searchImagesAlias', 'images', 'Search images (alias)', 'The same as `/search/images`.', S.ImageListResponse, Q.searchImages),
  search('/search/comments', 'searchComments', 'comments', 'Search comments', 'Comments matching `q`, newest first.', S.CommentListResponse),
  search('/search/galleries', 'searchGalleries', 'galleries', 'Search galleries', 'Galleries matching `q`, newest first.', S.GalleryListResponse),
  search('/search/posts', 'searchPosts', 'posts', 'Search forum posts', 'Posts of public forums matching `q`, newest first.', S.PostListResponse),
  search('/search/tags', 'searchTags', 'tags', 'Search tags', 'Tags matching `q`, by image count.', S.TagListResponse),
  search('/search/filters', 'searchFilters', 'filters', 'Search filters', 'Public and system filters (and the key user\'s own) matching `q`, by name.', S.FilterSearchResponse),
  {
    method: 'get',
    path: '/search/explain',
    operationId: 'explainSearch',
    tag: 'Search',
    summary: 'What a query compiles to',
    description: 'The OpenSearch query DSL `q` compiles to on `index`, for the caller (their role and key).',
    query: Q.searchExplain,
    key: 'optional',
    responses: readAnswers({
      200: ok(S.ExplainResponse, 'The compiled query'),
      400: { description: 'Missing or unknown `index`, or a query that does not compile: `{"error"}`.', schema: S.ErrorBody },
    }),
  },
  {
    method: 'post',
    path: '/search/reverse',
    operationId: 'reverseSearch',
    tag: 'Search',
    summary: 'Reverse image search',
    description:
      'Images that look like the image at `url` (or the uploaded file), closest first. POST only. No filter applies; hidden images are included. A missing, unreachable or unreadable image, or an invalid `limit`, gives the empty result.',
    query: Q.reverse,
    key: 'optional',
    requestBody: {
      required: false,
      description: 'Optional: the parameters as a JSON or form body, or the file as multipart `image`.',
      content: {
        'application/json': S.ReverseSearchBody,
        'application/x-www-form-urlencoded': S.ReverseSearchBody,
        'multipart/form-data': S.ReverseSearchUpload,
      },
    },
    responses: {
      200: { description: 'Similar images, closest first.', schema: S.ImageListResponse },
      403: forbidden(),
      429: tooMany,
      500: internal,
    },
  },
  // Forums
  list('/forums', 'listForums', 'Forums', 'Forums', 'The public forums, by name.', S.ForumListResponse),
  show('/forums/{short_name}', 'getForum', 'Forums', 'A forum', 'A public forum.', S.ForumResponse, 'Unknown or restricted forum'),
  list(
    '/forums/{short_name}/topics',
    'listTopics',
    'Forums',
    'Topics of a forum',
    'Visible topics: sticky ones first, then by last reply.',
    S.TopicListResponse,
    'Unknown or restricted forum',
  ),
  show(
    '/forums/{short_name}/topics/{topic_slug}',
    'getTopic',
    'Forums',
    'A topic',
    'A visible topic of a public forum.',
    S.TopicResponse,
    'Unknown forum or topic, or a hidden topic',
  ),
  list(
    '/forums/{short_name}/topics/{topic_slug}/posts',
    'listTopicPosts',
    'Forums',
    'Posts of a topic',
    'Posts by position in the topic (`per_page` posts per page); destroyed posts are left out, hidden ones have a null body. `total` is the topic\'s post count.',
    S.TopicPostListResponse,
    'Unknown forum or topic, or a hidden topic',
  ),
  show(
    '/forums/{short_name}/topics/{topic_slug}/posts/{post_id}',
    'getTopicPost',
    'Forums',
    'A post of a topic',
    'One post of a visible topic.',
    S.PostResponse,
    'Unknown forum, topic or post',
  ),
];

// ---------------------------------------------------------------------------------------------
// Looking operations up
// ---------------------------------------------------------------------------------------------

function templateRegex(path: string): RegExp {
  const source = path
    .split(/(\{[a-z_]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

/**
 * The operation serving a concrete path (relative to `API_PREFIX`, without the query), as the
 * router picks it: fixed segments win over parameters (`/images/featured`).
 */
export function matchOperation(method: string, path: string): OperationSpec | undefined {
  const m = method.toLowerCase();
  const candidates = OPERATIONS.filter((op) => op.method === m && templateRegex(op.path).test(path));
  return candidates.sort((a, b) => b.path.split('{').length - a.path.split('{').length).at(-1);
}

/** The parameter names of a path template. */
export const pathParamNames = (path: string): string[] => [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]!);

// ---------------------------------------------------------------------------------------------
// The document
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

const schemaRef = (name: string) => `#/components/schemas/${name}`;

function idOf(schema: z.ZodType): string | undefined {
  const meta = z.globalRegistry.get(schema) as { id?: unknown } | undefined;
  return typeof meta?.id === 'string' ? meta.id : undefined;
}

function descriptionOf(schema: z.ZodType): string | undefined {
  const meta = z.globalRegistry.get(schema) as { description?: unknown } | undefined;
  return typeof meta?.description === 'string' ? meta.description : undefined;
}

function stripDialect(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** Every schema an operation uses that is not a component itself (unions, path parameters). */
function inlineSchemas(): z.ZodType[] {
  const out = new Set<z.ZodType>();
  const add = (schema: z.ZodType) => {
    if (!idOf(schema)) out.add(schema);
  };
  for (const op of OPERATIONS) {
    for (const name of pathParamNames(op.path)) {
      const schema = S.pathParams[name as S.PathParamName];
      if (!schema) throw new Error(`${op.path}: no schema for path parameter ${name}`);
      add(schema);
    }
    for (const spec of Object.values(op.responses)) if (spec.schema) add(spec.schema);
    for (const schema of Object.values(op.requestBody?.content ?? {})) add(schema);
  }
  return [...out];
}

interface Converted {
  /** Component schemas by name. */
  schemas: Record<string, Json>;
  /** The JSON Schema of a schema as an operation uses it: a `$ref` for components. */
  json(schema: z.ZodType): Json;
}

/**
 * One conversion of every schema the document uses: components by their ids, the others under
 * temporary ids, so that components nested anywhere become `$ref`s to `components.schemas`.
 */
function convertSchemas(): Converted {
  const registry = z.registry<{ id: string }>();
  for (const schema of S.componentSchemas) {
    const id = idOf(schema);
    if (!id) throw new Error('a component schema has no id');
    if (registry._idmap.has(id)) throw new Error(`component id ${id} is used twice`);
    registry.add(schema, { id });
  }
  const inline = new Map<z.ZodType, string>();
  inlineSchemas().forEach((schema, i) => {
    inline.set(schema, `__inline_${i}`);
    registry.add(schema, { id: `__inline_${i}` });
  });
  const out = z.toJSONSchema(registry, { target: 'draft-2020-12', uri: schemaRef, unrepresentable: 'throw' }) as {
    schemas: Record<string, Json>;
  };
  if ('__shared' in out.schemas) throw new Error('schemas share unnamed definitions; name them');
  const schemas: Record<string, Json> = {};
  const inlined: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(out.schemas)) {
    if (name.startsWith('__inline_')) inlined[name] = stripDialect(schema);
    else schemas[name] = stripDialect(schema);
  }
  return {
    schemas,
    json(schema) {
      const id = idOf(schema);
      if (id && schemas[id]) return { $ref: schemaRef(id) };
      const tmp = inline.get(schema);
      const converted = tmp ? inlined[tmp] : undefined;
      if (!converted) throw new Error('a schema used by an operation was not converted');
      return converted;
    },
  };
}

/** A parameter's own schema, and whether a request must carry it (those with a default need not). */
const unwrapOptional = (field: z.ZodType): { inner: z.ZodType; required: boolean } => {
  if (field instanceof z.ZodOptional) return { inner: field.unwrap() as z.ZodType, required: false };
  return { inner: field, required: !(field instanceof z.ZodDefault) };
};

function parameterObjects(op: OperationSpec, converted: Converted): Json[] {
  const out: Json[] = [];
  for (const name of pathParamNames(op.path)) {
    const schema = S.pathParams[name as S.PathParamName];
    out.push({ name, in: 'path', required: true, description: descriptionOf(schema), schema: converted.json(schema) });
  }
  for (const [name, field] of Object.entries(op.query.shape as Record<string, z.ZodType>)) {
    if (name === 'key') continue; // the security scheme
    const id = idOf(unwrapOptional(field).inner);
    if (!id) throw new Error(`${op.path}: query parameter ${name} has no component`);
    out.push({ $ref: `#/components/parameters/${id}` });
  }
  return out;
}

/** Query parameters are components named like their schemas (`Page`, `PerPage`, …). */
function parameterComponents(converted: Converted): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    for (const [name, field] of Object.entries(op.query.shape as Record<string, z.ZodType>)) {
      if (name === 'key') continue;
      const { inner, required } = unwrapOptional(field);
      const id = idOf(inner)!;
      const param: Json = { name, in: 'query', required, description: descriptionOf(inner), schema: converted.json(inner) };
      const existing = out[id];
      if (existing && JSON.stringify(existing) !== JSON.stringify(param)) throw new Error(`query parameter ${id} is defined in two ways`);
      out[id] = param;
    }
  }
  return out;
}

function responseObjects(op: OperationSpec, converted: Converted): Json {
  const out: Json = {};
  for (const [status, spec] of Object.entries(op.responses)) {
    const response: Json = { description: spec.description };
    if (spec.headers) response.headers = Object.fromEntries(spec.headers.map((h) => [h, { $ref: `#/components/headers/${h}` }]));
    if (spec.schema) response.content = { 'application/json': { schema: converted.json(spec.schema) } };
    out[status] = response;
  }
  return out;
}

export type OpenApiOptions = Pick<Config, 'baseUrl' | 'siteName'>;

/** The OpenAPI 3.1 document of the API. */
export function buildOpenApiDocument(config: OpenApiOptions): Json {
  const converted = convertSchemas();
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is listed twice`);
    const operation: Json = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      description: op.description,
      parameters: parameterObjects(op, converted),
      security: op.key === 'required' ? [{ apiKey: [] }] : [{}, { apiKey: [] }],
      responses: responseObjects(op, converted),
    };
    if (op.requestBody) {
      operation.requestBody = {
        required: op.requestBody.required,
        description: op.requestBody.description,
        content: Object.fromEntries(
          Object.entries(op.requestBody.content).map(([type, schema]) => [type, { schema: converted.json(schema) }]),
        ),
      };
    }
    item[op.method] = operation;
  }
  return {
    openapi: OPENAPI_VERSION,
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: `${config.siteName} API`,
      version: '1.0.0',
      summary: 'A Philomena-compatible JSON API for an image board.',
      description: documentDescription(config),
      license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
    },
    servers: [{ url: `${config.baseUrl.replace(/\/+$/, '')}${API_PREFIX}`, description: 'This service.' }],
    tags: [
      { name: 'Images', description: 'Images and image submission.' },
      { name: 'Comments', description: 'Comments on images.' },
      { name: 'Tags', description: 'Tags.' },
      { name: 'Users', description: 'User profiles.' },
      { name: 'Filters', description: 'Filters: what a caller sees hidden or spoilered.' },
      { name: 'Forums', description: 'Forums, topics and posts.' },
      { name: 'Search', description: 'Search of every index, and reverse image search.' },
      { name: 'oEmbed', description: 'oEmbed for image links.' },
    ],
    paths,
    components: {
      schemas: converted.schemas,
      parameters: parameterComponents(converted),
      headers: HEADERS,
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'query',
          name: 'key',
          description:
            'The API key from the account settings. Optional on most operations (anonymous without it); required for `POST /images` (401 without) and `GET /filters/user` (403 without).',
        },
      },
    },
  };
}
