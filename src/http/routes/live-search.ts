/**
 * `GET /search/images/live?q=…`: a live search as Server-Sent Events. `image` (the API's image
 * object, for an anonymous caller with the current filter) when an image starts matching `q`
 * under the caller's filter and visibility: new, newly tagged into the query, unhidden; `gone`
 * (`{"id"}`) when it stops. Each event's id is its position in the change log: `Last-Event-ID`
 * (or `last_event_id`) resumes without loss within the log's retention, across restarts; older
 * is 410 like the change feed. The stream opens with the current position and is kept open by
 * heartbeat comments.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../env/context.js';
import { ApiError } from '../answers/errors.js';
import { unusableCursorAnswer } from '../live/cursor.js';
import { SSE_HEADERS, SseStream } from '../live/sse.js';
import type { LiveEvent } from '../live/types.js';
import { LiveSearchQuery } from '../../api/schemas/live.js';
import { validQuery } from '../request/validate.js';
import { planLiveImageQuery } from '../../contexts/search/plan.js';
import { searchCallerOf } from '../request/search-caller.js';

const LAST_EVENT_ID = /^\d{1,15}$/;
/** Seconds a client is asked to wait when every live connection place is taken. */
const FULL_RETRY_AFTER_SECONDS = 30;

export function liveSearchRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/search/images/live', validQuery(LiveSearchQuery), async (c) => {
    const params = c.req.valid('query');
    const header = c.req.header('last-event-id');
    if (header !== undefined && !LAST_EVENT_ID.test(header.trim())) throw new ApiError(400, 'Last-Event-ID must be an event id of this stream');
    const resumeFrom = header !== undefined ? Number(header.trim()) : params.last_event_id;
    const query = await planLiveImageQuery(c.get('deps'), searchCallerOf(c), params.q);
    if (resumeFrom !== undefined) {
      const unusable = await unusableCursorAnswer(c, resumeFrom);
      if (unusable) return unusable;
    }
    const live = c.get('deps').live!;
    // Made before it is admitted, so that a stop at any moment from here on closes it.
    const stream = new SseStream();
    const release = live.admit(() => stream.close());
    if (release === null) {
      stream.close();
      c.header('Retry-After', String(FULL_RETRY_AFTER_SECONDS));
      throw new ApiError(503, 'Too many live connections are open; retry later');
    }
    stream.onClose(release);
    try {
      await live.start();
    } catch (err) {
      stream.close();
      throw err;
    }
    // Live events are held back until the replay is written, then only the newer ones go out:
    // the replay may read a transaction the follower delivers later, so one at or below the
    // replayed position is dropped for as long as the stream lives, not only while held.
    let held: LiveEvent[] | null = [];
    let through = 0;
    let unsubscribe: () => void;
    try {
      unsubscribe = live.subscribeSearch(query, (events) => {
        if (held !== null) held.push(...events);
        else stream.send(events.filter((e) => e.seq > through));
      });
    } catch (err) {
      stream.close();
      throw err;
    }
    stream.onClose(unsubscribe);
    if (resumeFrom === undefined) {
      through = live.seq;
    } else {
      const replayed = await live.replaySearch(query, resumeFrom).catch((err: unknown) => {
        stream.close();
        throw err;
      });
      stream.send(replayed.events);
      through = replayed.through;
    }
    stream.position(Math.max(through, resumeFrom ?? 0));
    stream.send(held.filter((e) => e.seq > through));
    held = null;
    return c.body(stream.body, 200, SSE_HEADERS);
  });
  return app;
}
