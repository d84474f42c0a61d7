/**
 * Parameters and answers of the live endpoints: the change feed (`/changes`) and live searches
 * (`/search/images/live`, a Server-Sent Events stream).
 */
import { z } from 'zod';
import { datetime } from './common.js';
import { queryParams } from './params.js';

/** Positions in the change log are positive 53-bit integers; 0 is "from the start of what is kept". */
const Cursor = z.preprocess(
  (value) => (Array.isArray(value) ? value[0] : value),
  z.coerce.number({ error: 'must be a change cursor (a decimal integer)' }).int('must be a change cursor (a decimal integer)').min(0, 'must be a change cursor (a decimal integer)').max(Number.MAX_SAFE_INTEGER, 'must be a change cursor (a decimal integer)'),
);

export const ChangeCursor = Cursor.meta({
  id: 'ChangeCursor',
  description: 'The `cursor` of the previous page. Absent: from the oldest change kept. Older than the log keeps: 410.',
});

export const ChangeLimit = z
  .preprocess((value) => (Array.isArray(value) ? value[0] : value), z.coerce.number().int().min(1).max(1000))
  .default(100)
  .meta({ id: 'ChangeLimit', description: 'Most rows of the log read for this page, 1 to 1000 (default 100); one entry per record per transaction.' });

export const LastEventId = Cursor.meta({
  id: 'LastEventId',
  description: 'Resume after this event id, for clients that cannot send the `Last-Event-ID` header (the header wins when both are given).',
});

export const ChangesQuery = z.object({ since: ChangeCursor.optional(), limit: ChangeLimit });

export const LiveSearchQuery = z.object({ q: queryParams.q.optional(), filter_id: queryParams.filter_id.optional(), last_event_id: LastEventId.optional() });

export const ChangeKinds = ['image', 'comment', 'post', 'tag', 'gallery', 'board'] as const;
export const ChangeActions = ['created', 'updated', 'hidden', 'deleted', 'merged', 'reset'] as const;

export const Change = z
  .strictObject({
    cursor: z.int().min(1).meta({ description: 'Position of this change; pass it as `since` to continue after it.' }),
    kind: z.enum(ChangeKinds).meta({ description: 'The kind of record. `board` with `reset`: a bulk load changed anything; reload from a dump.' }),
    id: z.int().min(0).meta({ description: 'The record id (0 for `board`).' }),
    change: z.enum(ChangeActions).meta({
      description:
        '`created`; `updated` (any field, tags, sources, description, unhiding, thumbnails); `hidden` (no longer public); `deleted` (gone for good); `merged` (an image became a duplicate of `duplicate_of`); `reset`.',
    }),
    duplicate_of: z.int().min(1).optional().meta({ description: 'For `merged` images: the image it is a duplicate of.' }),
    at: datetime().meta({ description: 'When the changing transaction began.' }),
  })
  .meta({ id: 'Change', description: 'One change to a public record.' });

export const ChangesResponse = z
  .strictObject({
    changes: z.array(Change),
    cursor: z.int().min(0).meta({ description: 'Pass as `since` to read on; the same as `since` when nothing changed.' }),
    more: z.boolean().meta({ description: 'More changes are waiting: ask again at once.' }),
  })
  .meta({ id: 'Changes', description: 'Changes in commit order.' });

export const CursorExpiredBody = z
  .strictObject({
    error: z.string(),
    dump: z
      .strictObject({
        name: z.string().meta({ description: 'The dump to load (`/dumps/<name>/`).' }),
        url: z.string(),
        cursor: z.int().min(0).meta({ description: 'Continue the feed from here once the dump is loaded (a little before the dump was taken: re-applying a change is harmless).' }),
      })
      .nullable()
      .meta({ description: 'The newest nightly dump; null when there is none.' }),
    head: z.int().min(0).meta({ description: 'The newest position of the change log.' }),
  })
  .meta({ id: 'CursorExpired', description: 'The cursor cannot be continued: it is older than the change log keeps, or beyond its newest position.' });
