/** The live endpoints in the OpenAPI document: live image searches (SSE) and the change feed. */
import { z } from 'zod';
import * as S from '../../api/schemas/index.js';
import { forbidden, internal, queryError, tooMany, type OperationSpec } from './spec.js';

const cursorExpired = {
  description:
    'The position cannot be continued: it is older than the change log keeps (`CHANGE_LOG_RETENTION_DAYS`, default 7), or beyond the newest position (`head`; a cursor this log never gave, e.g. from before a restore). Reload from the nightly dump named in the body, then continue from its `cursor`.',
  schema: S.CursorExpiredBody,
};

const EventStream = z.string().meta({
  description:
    'A `text/event-stream`. Events: `image` (data: the image object, as `/images/{image_id}` renders it for an anonymous caller with the current filter) when an image starts matching — new, tagged into the query, unhidden; `gone` (data: `{"id"}`) when one stops matching — tagged out, hidden, merged, deleted. Every event has an `id`: its position in the change log. The stream opens with the current position (an `id:` line without data) and sends a comment every 15 s.',
});

export const LIVE_OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/search/images/live',
    operationId: 'liveSearchImages',
    tag: 'Search',
    summary: 'Follow an image search live (Server-Sent Events)',
    description:
      'Pushes each image that starts or stops matching `q` under the caller\'s filter and visibility, as `/search/images` would list it. Resume after a disconnect, even across a server restart, with the `Last-Event-ID` header (EventSource sends it by itself) or `last_event_id`: nothing is lost within the retention of the change log. Queries are matched in the server, one matcher per distinct query and filter. The same stream is available on the socket as topic `search:<q>` (see the description of this API).',
    query: S.LiveSearchQuery,
    key: 'optional',
    responses: {
      200: { description: 'The event stream.', schema: EventStream, contentType: 'text/event-stream' },
      400: { description: 'No `q`, a query that does not compile, or a malformed `Last-Event-ID`: `{"error"}`.', schema: queryError.schema },
      403: forbidden(),
      410: cursorExpired,
      429: tooMany,
      500: internal,
      503: {
        description: 'As many live connections (streams and sockets) are open as the server keeps (`LIVE_MAX_CONNECTIONS`, default 20,000): wait `Retry-After` seconds and try again. A socket beyond the limit is closed with code 1013.',
        schema: S.ErrorBody,
        headers: ['Retry-After'],
      },
    },
  },
  {
    method: 'get',
    path: '/changes',
    operationId: 'listChanges',
    tag: 'Changes',
    summary: 'What changed, for mirrors',
    description:
      'The public records that changed, in commit order: images, comments, posts, tags, galleries, each `created`, `updated`, `hidden`, `deleted` or `merged`, with the cursor to continue after it. Read with `since` set to the last `cursor` until `more` is false, then poll. A mirror loads a nightly dump, continues from the cursor the 410 answer names (or from the changes since the dump was taken), and re-fetches the records that changed: it stays exact without crawling the API. `board`/`reset` means a bulk load changed records without logging each: reload from a dump.',
    query: S.ChangesQuery,
    key: 'optional',
    responses: {
      200: { description: 'A page of changes. Not cached.', schema: S.ChangesResponse },
      400: { description: 'A `since` or `limit` that is not a number in range: `{"error"}`.', schema: S.ErrorBody },
      403: forbidden(),
      410: cursorExpired,
      429: tooMany,
      500: internal,
    },
  },
];
