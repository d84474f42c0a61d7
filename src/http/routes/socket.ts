/**
 * The reference's socket (`/socket/websocket`, Phoenix's websocket transport, `vsn=2.0.0` or
 * `1.0.0`), served by `ws` through `@hono/node-server`'s upgrade. Anonymous unless `key` is given
 * on the URL, like the API. Topics:
 *
 * - `firehose`: every public change as the reference broadcasts it (see live/firehose-events.ts);
 * - `search:<q>`: a live search (events `image` and `gone`, as on the SSE stream), seen through
 *   the connection's filter (`filter_id` on the URL, else the key's or the Default filter).
 *
 * Joining anything else is refused with `{"reason": "not_found"}`; a query that does not compile
 * with `{"reason": <message>}`. Heartbeats (`phoenix`/`heartbeat`) and `phx_leave` are answered;
 * any other client message, or a frame that is not one, closes the connection (code 1008), as a
 * channel of the reference crashes on messages it does not handle.
 */
import type { IncomingMessage } from 'node:http';
import { upgradeWebSocket } from '@hono/node-server';
import { Hono } from 'hono';
import { WebSocketServer } from 'ws';
import type { WSContext, WSEvents } from 'hono/ws';
import type { AppContext, AppEnv } from '../env/context.js';
import { ApiError } from '../answers/errors.js';
import { decode, encode, parseVsn, reply, type PhoenixMessage, type PhoenixVsn } from '../live/phoenix.js';
import type { FirehoseEvent, Live, LiveEvent } from '../live/types.js';
import { acceptUpgrade } from '../server/upgrades.js';
import { planLiveImageQuery } from '../../contexts/search/plan.js';
import { SearchRequestError } from '../../contexts/search/errors.js';
import { searchCallerOf } from '../request/search-caller.js';

const FIREHOSE = 'firehose';
const SEARCH_PREFIX = 'search:';
/** Topics one connection may follow at once. */
const MAX_TOPICS = 32;

/** Each event's frame, encoded once per serializer version however many sockets send it. */
const encodedFrames = new WeakMap<FirehoseEvent, Partial<Record<PhoenixVsn, string>>>();

function firehoseFrame(vsn: PhoenixVsn, e: FirehoseEvent): string {
  let frames = encodedFrames.get(e);
  if (frames === undefined) encodedFrames.set(e, (frames = {}));
  return (frames[vsn] ??= encode(vsn, { joinRef: null, ref: null, topic: FIREHOSE, event: e.event }, JSON.stringify(e.payload)));
}

function connection(c: AppContext, live: Live, vsn: PhoenixVsn): WSEvents {
  const joined = new Map<string, () => void>();
  let socket: WSContext | null = null;
  const send = (frame: string) => {
    if (socket?.readyState === 1) socket.send(frame);
  };
  let release: (() => void) | null = null;
  const leaveAll = () => {
    for (const unsubscribe of joined.values()) unsubscribe();
    joined.clear();
  };
  const closed = () => {
    leaveAll();
    release?.();
  };

  async function join(m: PhoenixMessage): Promise<void> {
    joined.get(m.topic)?.();
    joined.delete(m.topic);
    if (joined.size >= MAX_TOPICS) return send(reply(vsn, m, 'error', { reason: 'too many topics' }));
    if (m.topic === FIREHOSE) {
      await live.start();
      joined.set(m.topic, live.subscribeFirehose((events) => events.forEach((e) => send(firehoseFrame(vsn, e)))));
      return send(reply(vsn, m, 'ok', {}));
    }
    if (!m.topic.startsWith(SEARCH_PREFIX)) return send(reply(vsn, m, 'error', { reason: 'not_found' }));
    try {
      const q = await planLiveImageQuery(c.get('deps'), searchCallerOf(c), m.topic.slice(SEARCH_PREFIX.length));
      await live.start();
      const frame = (e: LiveEvent) => encode(vsn, { joinRef: null, ref: null, topic: m.topic, event: e.event }, e.data);
      joined.set(m.topic, live.subscribeSearch(q, (events) => events.forEach((e) => send(frame(e)))));
      send(reply(vsn, m, 'ok', {}));
    } catch (err) {
      if (!(err instanceof ApiError || err instanceof SearchRequestError)) throw err;
      send(reply(vsn, m, 'error', { reason: err.message }));
    }
  }

  return {
    onOpen(_event, ws) {
      // 1001 "going away": the server stops; the client reconnects to another or later
      release = live.admit(() => ws.close(1001, 'server shutting down'));
      // 1013 "try again later": every live connection place is taken
      if (release === null) return ws.close(1013, 'too many live connections');
      socket = ws;
    },
    onMessage(event, ws) {
      const m = typeof event.data === 'string' ? decode(vsn, event.data) : null;
      if (m !== null && m.topic === 'phoenix' && m.event === 'heartbeat') return send(reply(vsn, m, 'ok', {}));
      if (m !== null && m.event === 'phx_join') {
        join(m).catch(() => ws.close(1011, 'join failed'));
        return;
      }
      if (m !== null && m.event === 'phx_leave' && joined.has(m.topic)) {
        joined.get(m.topic)!();
        joined.delete(m.topic);
        send(reply(vsn, m, 'ok', {}));
        return send(encode(vsn, { joinRef: m.joinRef, ref: m.joinRef, topic: m.topic, event: 'phx_close' }, '{}'));
      }
      leaveAll();
      ws.close(1008, 'unexpected message');
    },
    onClose: closed,
    onError: closed,
  };
}

/** Client frames larger than this close the connection (joins and heartbeats are tiny). */
const MAX_FRAME_BYTES = 64 * 1024;

/** The `ws` server that `serve({ websocket: { server } })` hands upgrades to. */
export function createSocketServer(): WebSocketServer {
  return new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
}

export function socketRoutes(): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const upgrade = upgradeWebSocket((c) => connection(c as AppContext, (c as AppContext).get('deps').live!, parseVsn(c.req.query('vsn'))!), { onError: () => {} });
  app.get(
    '/socket/websocket',
    async (c, next) => {
      if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') throw new ApiError(400, 'this is a websocket endpoint');
      if (parseVsn(c.req.query('vsn')) === null) throw new ApiError(400, 'unsupported vsn: use 2.0.0 or 1.0.0');
      await next();
    },
    async (c, next) => {
      const answer = await upgrade(c, next);
      // the adapter upgrades the socket after this answer; any other answer is written as it is
      if (answer?.ok) acceptUpgrade((c.env as { incoming?: IncomingMessage } | undefined)?.incoming);
      return answer;
    },
  );
  return app;
}
