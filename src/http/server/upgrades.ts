/**
 * Requests with an `Upgrade` header. Node hands every one of them to the server's `upgrade`
 * listeners, detached from its HTTP parser, instead of to the request listener. @hono/node-server's
 * listener takes the websocket ones to the app, and upgrades the socket when the app's route
 * accepts (routes/socket.ts); but it answers a refusal with its status and no body, a request it
 * cannot make a URL of with a bare 400, leaves a failed websocket handshake to `ws` (plain text),
 * and leaves any other upgrade (`h2c`, …) unanswered, its connection held open.
 *
 * Here instead:
 * - an upgrade the app does not accept gets the app's whole answer (the JSON error of a bad `vsn`,
 *   the 404 of another path, or the answer of the route as if no upgrade had been asked for);
 * - any other upgrade, and a websocket one the adapter could not make a request of, is served as
 *   an ordinary request (RFC 9110 §7.8: a server may ignore `Upgrade`), errors in JSON;
 * - a websocket handshake `ws` refuses is 400 (405 for a method other than GET) in JSON.
 * Each of these answers closes the connection (src/http/server/protocol-answers.ts).
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import type { WebSocketServer } from 'ws';
import { closeAfterAnswer } from './protocol-answers.js';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;
type Fetch = (req: Request, env?: unknown) => Response | Promise<Response>;

/** Upgrade requests the adapter made a request of and handed to the app. */
const handedToApp = new WeakSet<IncomingMessage>();
/** Upgrade requests a websocket route accepted: the adapter upgrades their socket. */
const accepted = new WeakSet<IncomingMessage>();

/** Called by a websocket route that accepts the upgrade of `incoming` (the adapter's `c.env.incoming`). */
export function acceptUpgrade(incoming: IncomingMessage | undefined): void {
  if (incoming) accepted.add(incoming);
}

/** A response on the detached socket of an upgrade request; the connection closes once it is written. */
function responseOnSocket(req: IncomingMessage, socket: Socket): ServerResponse {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', () => closeAfterAnswer(socket));
  return res;
}

/** Write the app's answer `response` on the socket of `req`. */
function writeAnswer(req: IncomingMessage, socket: Socket, response: Response): void {
  const res = responseOnSocket(req, socket);
  res.statusCode = response.status;
  for (const [name, value] of response.headers) if (name !== 'set-cookie') res.appendHeader(name, value);
  for (const cookie of response.headers.getSetCookie()) res.appendHeader('set-cookie', cookie);
  if (response.body) Readable.fromWeb(response.body as WebReadableStream<Uint8Array>).pipe(res);
  else res.end();
}

/**
 * The `fetch` the adapter calls, for upgrades too: the app's answer to an upgrade it does not
 * accept is written here in full, and the adapter, with a listener of ours beside its own, leaves
 * the socket alone.
 */
export function answerRefusedUpgrades(fetch: Fetch): Fetch {
  return async (req, env) => {
    const { incoming, outgoing } = (env ?? {}) as { incoming?: IncomingMessage; outgoing?: unknown };
    if (outgoing !== undefined || incoming === undefined) return fetch(req, env);
    handedToApp.add(incoming);
    const response = await fetch(req, env);
    if (!accepted.has(incoming) && !incoming.socket.destroyed) writeAnswer(incoming, incoming.socket, response);
    return response;
  };
}

/** `ws`'s refusal of a handshake it cannot complete (bad key, version, protocol list), in JSON. */
function onHandshakeError(err: Error, socket: Socket, req: IncomingMessage): void {
  if (socket.destroyed) return;
  const body = JSON.stringify({ error: `Bad websocket handshake: ${err.message}` });
  const res = responseOnSocket(req, socket);
  res.writeHead(req.method === 'GET' ? 400 : 405, { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/**
 * Answer every upgrade `server` gets that the adapter's websocket listener (registered before this
 * one, by `serve`) did not hand to the app: as an ordinary request, through `listener`.
 */
export function serveOtherUpgrades(server: Server, websocket: WebSocketServer, listener: RequestListener): void {
  websocket.on('wsClientError', onHandshakeError);
  server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
    // The adapter's listener ran first and, when it could build a request, handed it to the app
    // before its first await: such a request is answered by answerRefusedUpgrades or upgraded.
    if (handedToApp.has(req)) return;
    socket.on('error', () => {});
    listener(req, responseOnSocket(req, socket));
  });
}
