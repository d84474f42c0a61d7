/**
 * The prose of the OpenAPI document: its description (usage terms, authentication, answers) and
 * the summary of the search language, with each index's fields listed from its field set.
 */
import type { Config } from '../../config.js';
import { MAX_HEADER_BYTES } from '../protocol-answers.js';
import type { FieldSet, FieldSpec, FieldType } from '../../../grammar/index.js';
import { queryFields, indexNames, type IndexName } from '../../search/indexes/index.js';

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
export function searchFieldsDescription(index: IndexName): string {
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
- **Dates**: \`YYYY[-MM[-DD[THH[:MM[:SS]]]]][Z|±HH[:MM]]\` covers the whole period written (\`created_at:2024-05\` is all of May); relative \`N units ago\` (seconds to years). Dates run from year 0000 to 9999 (UTC): a bound past either end (\`created_at:9999\` ends at 10000-01-01) is read as that end.
- **Special fields**: on images \`my:faves\`, \`my:upvotes\`, \`my:downvotes\`, \`my:uploads\`, \`my:hidden\`, \`my:subs\`, \`my:watched\` (with a key), \`gallery_id:N\` (images of a gallery), \`filter_id:N\` (images that filter would hide); \`my:comments\`, \`my:posts\`, \`my:galleries\`, \`my:filters\` on their indexes (with a key).
- **Errors** are 400 \`{"error": "<message>"}\` with the reference's wording, e.g. \`Imbalanced parentheses.\`, \`Expected a term.\`, \`junk at end of expression: …\`, \`range specified for <field>\`.
- An empty or missing \`q\` matches nothing; \`*\` matches everything.

${indexNames.map((index) => `- **${index}**: ${searchFieldsDescription(index)}`).join('\n')}`;

const LIVE = `## Live: the socket, live searches and the change feed

- **Socket** (\`/socket/websocket\`, outside \`/api/v1/json\`): Phoenix's websocket transport, as the reference serves it; connect with \`?vsn=2.0.0\` (frames \`[join_ref, ref, topic, event, payload]\`) or \`vsn=1.0.0\` (\`{topic, event, payload, ref}\`), e.g. with the \`phoenix\` JavaScript client. Anonymous unless \`key\` is on the URL; \`filter_id\` as everywhere. Heartbeats go to topic \`phoenix\` (event \`heartbeat\`, answered \`phx_reply\` \`{"status": "ok"}\`). Topics:
  - \`firehose\`: every public change. \`image:create\` and \`image:update\` (after a change of tags, description or sources) carry \`{"image", "interactions": []}\` as \`/images/{id}\` answers an anonymous caller; \`image:tag_update\` \`{image_id, added, removed}\` (tag names), or for one change to several images \`image:batch_tag_update\` \`{image_ids, added, removed}\`; \`image:description_update\` \`{image_id, added: new text, removed: old text}\`; \`image:source_update\` \`{image_id, added, removed}\` with flat lists of URLs (the reference nests them once more, \`[[urls]]\`); \`image:process\` \`{image_id}\` when the thumbnails are done; \`image:merge\` \`{image, duplicate_of_image}\` (the merged image as its stub); nothing else is sent about a merged or deleted image; \`comment:create\` and \`comment:update\` \`{comment}\`; \`post:create\` \`{post, topic, forum}\`, for forums open to everyone.
  - \`search:<q>\`: a live search (events \`image\` and \`gone\`, as below); one connection may follow up to 32 topics.
  - Any other topic is refused (\`{"reason": "not_found"}\`); a message other than a join, a leave or a heartbeat closes the connection.
- **Live searches**: \`GET /search/images/live?q=…\`, Server-Sent Events; resumable with \`Last-Event-ID\`.
- **Change feed**: \`GET /changes?since=CURSOR\`, for mirrors, with the nightly dumps.
- The socket, live searches and the change feed follow the change log, which keeps changes for \`CHANGE_LOG_RETENTION_DAYS\` (default 7); a position older than that is 410 with the dump to restart from. Live searches and the firehose evaluate an image as it is when the change is delivered.`;

export function documentDescription(config: Pick<Config, 'siteName'>): string {
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
- The request line (the URL with its query) and headers may take ${MAX_HEADER_BYTES} bytes together: longer ones get 431, so keep \`q\` well under that. A request that arrives too slowly gets 408.

${LIVE}

${QUERY_LANGUAGE}`;
}
