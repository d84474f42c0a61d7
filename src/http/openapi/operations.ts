/**
 * Every route of the JSON API as an `OperationSpec`: its parameters and the schema of each answer
 * by status. The document is derived from this list, and the conformance tests look operations up
 * here to validate real answers against the same zod schemas, so the two cannot drift apart.
 */
import { z } from 'zod';
import * as S from '../../api/schemas/index.js';
import { LIVE_OPERATIONS } from './live-operations.js';
import { busyDecoding, forbidden, internal, list, notFound, ok, type OperationSpec, Q, readAnswers, search, show, tooMany } from './spec.js';

/** How a filter's creation or change is refused, beside the success and a change's 404. */
const filterWriteRefusals = {
  400: { description: 'A malformed body, or a field that cannot be saved: `{"error": "<field>: <why>"}`.', schema: S.ErrorBody },
  403: forbidden('No key, or an unknown key: `{"error": "Forbidden"}`.'),
  413: { description: 'The JSON body is larger than 64 KiB.', schema: S.ErrorBody },
  415: { description: 'The content type is not `application/json`.', schema: S.ErrorBody },
  429: tooMany,
  500: internal,
};

export const OPERATIONS: readonly OperationSpec[] = [
  ...LIVE_OPERATIONS,
  // Images
  show({
    path: '/images/featured',
    operationId: 'getFeaturedImage',
    tag: 'Images',
    summary: 'The featured image',
    description: 'The most recently featured image that is not hidden.',
    schema: S.ImageResponse,
    missing: 'No image is featured',
  }),
  show({
    path: '/images/{image_id}',
    operationId: 'getImage',
    tag: 'Images',
    summary: 'An image',
    description: 'Any image. A merged or deleted one is its stub (`HiddenImage`, still 200): id, times, `duplicate_of` (merged) or `deletion_reason` (deleted), `hidden_from_users: true`, and no file URLs (its files answer 404). `spoilered` is computed with the current filter (`filter_id`).',
    schema: S.ImageResponse,
    missing: 'Unknown image',
  }),
  {
    method: 'post',
    path: '/images',
    operationId: 'submitImage',
    tag: 'Images',
    summary: 'Submit an image by URL',
    description:
      'Fetches the file at `url` and adds it with the given tags, description and sources. The key is required; the content type must be `application/json`. Abuse leads to a ban; submissions are rate-limited per key and address and capped per day. Limits: at most 1,000 tags (`tag_input`), at most 100,000,000 pixels (width × height, refused on `image_width` and `image_height`), and the whole file must decode (a truncated file is refused on `image`) within 10 s and 768 MB (refused on `image`: "took more time or memory to decode than is allowed"); an SVG is rendered at most 256×256 for that check, whatever size it declares. A submission refused before its body is read (no valid key, a ban, the wrong content type, a body over 1 MiB by its `Content-Length` or as it streams) is answered at once with `Connection: close`, the rest of the body unread; with `Expect: 100-continue` the body is asked for only once it is to be read.',
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
      503: busyDecoding,
    },
  },
  // Comments and posts
  show({
    path: '/comments/{comment_id}',
    operationId: 'getComment',
    tag: 'Comments',
    summary: 'A comment',
    description: 'A comment; hidden comments have a null body.',
    schema: S.CommentResponse,
    missing: 'Unknown or destroyed comment',
    forbiddenExtra: 'The comment is on a hidden image; or:',
  }),
  show({
    path: '/posts/{post_id}',
    operationId: 'getPost',
    tag: 'Forums',
    summary: 'A forum post',
    description: 'A post of a visible topic in a public forum.',
    schema: S.PostResponse,
    missing: 'Unknown or destroyed post, or its topic is hidden or its forum restricted',
  }),
  // Tags, profiles, filters
  show({
    path: '/tags/{tag_id}',
    operationId: 'getTag',
    tag: 'Tags',
    summary: 'A tag, by slug',
    description: 'Looked up by slug only (`artist-colon-example`, not `artist:example`); aliased tags are answered as themselves.',
    schema: S.TagResponse,
    missing: 'Unknown slug',
  }),
  show({
    path: '/profiles/{user_id}',
    operationId: 'getProfile',
    tag: 'Users',
    summary: 'A user profile',
    description: 'A user profile with public links and awards.',
    schema: S.ProfileResponse,
    missing: 'Unknown or deactivated user',
  }),
  show({
    path: '/filters/{filter_id}',
    operationId: 'getFilter',
    tag: 'Filters',
    summary: 'A filter',
    description: 'A system or public filter, one of the key user\'s own, or any filter for moderators.',
    schema: S.FilterResponse,
    missing: 'Unknown filter, or one the caller may not see',
  }),
  list({
    path: '/filters/system',
    operationId: 'listSystemFilters',
    tag: 'Filters',
    summary: 'System filters',
    description: 'Every system filter, by id.',
    schema: S.FilterListResponse,
  }),
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
  {
    method: 'post',
    path: '/filters',
    operationId: 'createFilter',
    tag: 'Filters',
    summary: 'Create a filter of the key user',
    description:
      'Creates a filter owned by the user of `key` (private unless `public` is true). Tag ids must exist (an alias is stored as its target); complex expressions must compile for that user, one alternative a line. The content type must be `application/json`.',
    query: Q.paged.pick({}),
    key: 'required',
    requestBody: { required: true, description: 'The filter; `name` is required.', content: { 'application/json': S.FilterWriteBody } },
    responses: {
      200: { description: 'The new filter.', schema: S.FilterResponse },
      ...filterWriteRefusals,
    },
  },
  {
    method: 'post',
    path: '/filters/{filter_id}',
    operationId: 'updateFilter',
    tag: 'Filters',
    summary: 'Change a filter of the key user',
    description: 'Changes the fields given of a filter owned by the user of `key`; fields left out stay as they are. Checked as on creation.',
    query: Q.paged.pick({}),
    key: 'required',
    requestBody: { required: true, description: 'The fields to change.', content: { 'application/json': S.FilterWriteBody } },
    responses: {
      200: { description: 'The filter as saved.', schema: S.FilterResponse },
      ...filterWriteRefusals,
      404: notFound('No filter of the key user has this id'),
    },
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
    description:
      'The OpenSearch query DSL `q` compiles to on `index`, for the caller (their role and key). With `image_id` (images only), also which clauses of the query that image matches: a tree mirroring the query\'s AND/OR/NOT structure with `matched` on every node, each clause run against the image\'s index document. No filter applies.',
    query: S.workbenchQuery.searchExplain,
    key: 'optional',
    responses: readAnswers({
      200: ok(S.ExplainResponse, 'The compiled query'),
      400: {
        description: 'Missing or unknown `index`, `image_id` on another index, or a query that does not compile: `{"error", "position", "excerpt"}`.',
        schema: S.QueryErrorBody,
      },
      404: notFound('`image_id` names no image, or a merged or deleted one (shown to staff moderators only)'),
    }),
  },
  {
    method: 'get',
    path: '/filters/explain',
    operationId: 'explainInlineFilter',
    tag: 'Filters',
    summary: 'Why a filter given inline hides or spoilers an image',
    description:
      'The filter is given in the query (`hidden_tags`, `spoilered_tags` by name; `hidden_tag_ids`, `spoilered_tag_ids`; `hidden_complex`, `spoilered_complex`, one alternative a line), so an author can try it before saving. Answers which of its tags the image has and which clauses of each complex expression its index document matches (offsets into the written text).',
    query: S.workbenchQuery.filterExplain,
    key: 'optional',
    responses: readAnswers({
      200: ok(S.FilterExplainResponse, 'Why the image is hidden or spoilered'),
      400: {
        description: 'An unknown tag name, a malformed id list, or a complex expression that does not compile (with `parameter` naming it and its place in the written text).',
        schema: z.union([S.FilterQueryErrorBody, S.ErrorBody]),
      },
      404: notFound('`image_id` names no image, or a merged or deleted one (shown to staff moderators only)'),
    }),
  },
  {
    method: 'get',
    path: '/filters/{filter_id}/explain',
    operationId: 'explainFilter',
    tag: 'Filters',
    summary: 'Why a saved filter hides or spoilers an image',
    description: 'As `/filters/explain`, for a filter the caller may view (system, public, own; any for moderators).',
    query: S.workbenchQuery.filterExplainById,
    key: 'optional',
    responses: readAnswers({
      200: ok(S.FilterExplainResponse, 'Why the image is hidden or spoilered'),
      400: { description: 'Missing or malformed `image_id`.', schema: S.ErrorBody },
      404: notFound('Unknown filter, one the caller may not see, or no such image (a merged or deleted one is shown to staff moderators only)'),
    }),
  },
  {
    method: 'get',
    path: '/filters/test',
    operationId: 'testFilter',
    tag: 'Filters',
    summary: 'Filter test bench',
    description:
      'What a filter would hide and spoiler in a sample of images: the newest `sample` images (default 1000, at most 5000), or the first ones `q` finds (no filter applies to the sample). Counts per tag and per clause of each complex expression, with up to five example ids each. The filter is given inline (as for `/filters/explain`), else by `filter_id`, else the current filter. Evaluation stops after a time budget of 2 s; `sample.complete` says whether every image was looked at.',
    query: S.workbenchQuery.filterTest,
    key: 'optional',
    responses: readAnswers({
      200: ok(S.FilterTestResponse, 'The bench\'s numbers'),
      400: {
        description: 'A bad `sample`, an unknown tag name, a `q` or complex expression that does not compile (`parameter` names the expression).',
        schema: z.union([S.FilterQueryErrorBody, S.QueryErrorBody]),
      },
      404: notFound('`filter_id` names no filter the caller may see'),
    }),
  },
  {
    method: 'get',
    path: '/filters/images',
    operationId: 'imagesUnderFilter',
    tag: 'Filters',
    summary: 'Images under a filter being written',
    description:
      'What `/search/images` would answer (`q`, `page`, `per_page`, `sf`, `sd`) if the filter given inline (as for `/filters/explain`), else by `filter_id`, else the current filter, were the caller\'s current filter: the images it hides are left out and `spoilered` is set by it. An inline filter with every part empty hides nothing.',
    query: S.workbenchQuery.filterImages,
    key: 'optional',
    responses: readAnswers({
      200: ok(S.ImageListResponse, 'A page of images'),
      400: {
        description: 'A bad parameter, an unknown tag name, a `q` or complex expression that does not compile (`parameter` names the expression).',
        schema: z.union([S.FilterQueryErrorBody, S.QueryErrorBody]),
      },
      404: notFound('`filter_id` names no filter the caller may see'),
    }),
  },
  {
    method: 'get',
    path: '/autocomplete/tags',
    operationId: 'autocompleteTags',
    tag: 'Tags',
    summary: 'Tag autocomplete',
    description:
      'Suggestions for what is being typed, from an in-memory index kept up to date from the outbox. Ranked by image count: names starting with the term first, then names whose words start with the typed words in any order (`dash rain` → `rainbow dash`), then names whose start is within one (terms of 3–4 characters) or two edits of the term, a transposition counting as one (the first character is taken as typed). `artist:` and other namespaces complete within the namespace. `term` may be a whole query: the term at `cursor` is completed, after a leading `-`, `!` or `NOT` and inside parentheses. Aliases complete to their target. The default answer is Philomena\'s `[{label, value}]`; `format=rich` adds kinds, categories, field names of the query language with their operators, and the range of `term` to replace.',
    query: S.workbenchQuery.autocomplete,
    key: 'optional',
    responses: readAnswers({
      200: ok(z.union([S.AutocompleteLabels, S.AutocompleteRich]), 'Suggestions, best first'),
      400: { description: 'Missing `term`, or a bad `cursor`, `format` or `limit`.', schema: S.ErrorBody },
    }),
  },
  {
    method: 'post',
    path: '/search/reverse',
    operationId: 'reverseSearch',
    tag: 'Search',
    summary: 'Reverse image search',
    description:
      'Images that look like the image at `url` (or the uploaded file), closest first: the identical file, then perceptual matches (a 64-bit DCT hash within `distance`·40 of its 64 bits), then the reference\'s corner-intensity matches. POST only. The current filter applies (`filter_id` or the key\'s): hidden images are never returned, spoilered ones are flagged. A missing, unreachable or unreadable image, an image over 100,000,000 pixels, an image whose decoding takes more than 10 s or 768 MB (an SVG is rendered at most 256×256, whatever size it declares), or an invalid `limit`, gives the empty result; when the URL was not fetched or the image not read, the answer carries `Warning: 199 tagwise "url not fetched: <code>"` or `Warning: 199 tagwise "image not readable"`. A body other than multipart may be at most 8 KiB. An uploaded file whose header declares more than 100,000,000 pixels is answered as soon as its first bytes arrive, without the rest being read. Each client (key, else address) may run 2 reverse searches at once and 30 a minute (`REVERSE_SEARCH_CONCURRENCY`, `REVERSE_SEARCH_RATE`); beyond either, 429 with `Retry-After`, whatever the request limits say. A client that sends again before that `Retry-After` is over gets its 429 only after a pause of about a second (never longer than the `Retry-After`), with `Connection: close` and the rest of its body unread; a client that waits as told never meets the pause.',
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
      413: { description: 'A JSON or form body larger than 8 KiB.', schema: S.ErrorBody },
      429: tooMany,
      500: internal,
      503: busyDecoding,
    },
  },
  // Forums
  list({
    path: '/forums',
    operationId: 'listForums',
    tag: 'Forums',
    summary: 'Forums',
    description: 'The public forums, by name.',
    schema: S.ForumListResponse,
  }),
  show({
    path: '/forums/{short_name}',
    operationId: 'getForum',
    tag: 'Forums',
    summary: 'A forum',
    description: 'A public forum.',
    schema: S.ForumResponse,
    missing: 'Unknown or restricted forum',
  }),
  list({
    path: '/forums/{short_name}/topics',
    operationId: 'listTopics',
    tag: 'Forums',
    summary: 'Topics of a forum',
    description: 'Visible topics: sticky ones first, then by last reply.',
    schema: S.TopicListResponse,
    missing: 'Unknown or restricted forum',
  }),
  show({
    path: '/forums/{short_name}/topics/{topic_slug}',
    operationId: 'getTopic',
    tag: 'Forums',
    summary: 'A topic',
    description: 'A visible topic of a public forum.',
    schema: S.TopicResponse,
    missing: 'Unknown forum or topic, or a hidden topic',
  }),
  list({
    path: '/forums/{short_name}/topics/{topic_slug}/posts',
    operationId: 'listTopicPosts',
    tag: 'Forums',
    summary: 'Posts of a topic',
    description: 'Posts by position in the topic (`per_page` posts per page); destroyed posts are left out, hidden ones have a null body. `total` is the topic\'s post count.',
    schema: S.TopicPostListResponse,
    missing: 'Unknown forum or topic, or a hidden topic',
  }),
  show({
    path: '/forums/{short_name}/topics/{topic_slug}/posts/{post_id}',
    operationId: 'getTopicPost',
    tag: 'Forums',
    summary: 'A post of a topic',
    description: 'One post of a visible topic.',
    schema: S.PostResponse,
    missing: 'Unknown forum, topic or post',
  }),
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
