/**
 * The Node HTTP server under the app: the limits that protect it from slow and malformed
 * clients, JSON answers for what Node rejects before the app sees a request, and draining for a
 * graceful stop.
 *
 * - Slow clients: all request headers within `headersTimeout`, the whole request within
 *   `requestTimeout` (408), and a connection idle between requests for `keepAliveTimeout` is
 *   closed. Node checks the first two on a timer (`connectionsCheckingInterval`), so that
 *   interval is kept short. Nothing limits how long the app takes to answer: a socket timeout
 *   there would reset a slow but legitimate request in flight (an upload fetching a large file).
 * - Malformed requests (a request line or headers over `MAX_HEADER_BYTES`, control characters, a
 *   broken request line) are answered `{"error": …}` with Node's status (431, 400, 408) instead of
 *   Node's bare text; the rest of what the client is still sending is read and dropped before the
 *   socket closes, so a client that sent a long URL reads the answer instead of a reset.
 * - Stopping (`close()`): the listening socket closes at once; from then on every answer,
 *   including those of requests in flight whose headers are not sent yet, says
 *   `Connection: close`, so keep-alive clients stop reusing connections. Connections idle at that
 *   moment are left open for `CLOSE_GRACE_MS` first (Node's own `server.close()` would close them
 *   at once, resetting a request a client is sending just then): a request that arrives meanwhile
 *   is answered, with `Connection: close`. After the grace, connections are closed as they go
 *   idle; `close()` resolves when the last one has.
 */
import { serve, type ServerType } from '@hono/node-server';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { WebSocketServer } from 'ws';
import type { HttpLimits } from '../config.js';
import { batchAnswers } from './answer-batches.js';

/** Bytes of request line plus headers Node accepts (its default); the URL limit the docs state. */
export const MAX_HEADER_BYTES = 16_384;

export interface HttpServer {
  server: ServerType;
  /** Stop accepting, answer with `Connection: close`, close connections as they go idle. */
  close(): Promise<void>;
}

/** How long the rest of a rejected request is read before its socket is destroyed. */
const DISCARD_MS = 2_000;
/** How long connections idle at a stop may still bring one last request. */
const CLOSE_GRACE_MS = 1_000;

function clientErrorAnswer(code: string | undefined): { status: number; reason: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, reason: 'Request Header Fields Too Large', message: `Request line and headers exceed ${MAX_HEADER_BYTES} bytes; send long queries in fewer characters` };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: 'Request took too long to arrive' };
  return { status: 400, reason: 'Bad Request', message: 'Malformed HTTP request' };
}

/** Node's `clientError`: answer in the API's JSON error shape, then let the client finish sending. */
function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, reason, message } = clientErrorAnswer(err.code);
  const body = JSON.stringify({ error: message });
  // a response already under way on this connection: a second one would corrupt it
  if ((socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  socket.on('data', () => {}); // read and drop, so that unread input does not turn close into a reset
  socket.on('error', () => {});
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), DISCARD_MS).unref();
}

/** Serve `fetch` on `host:port` with the limits above. */
export function startHttpServer(
  fetch: (req: Request) => Response | Promise<Response>,
  options: { port: number; hostname: string; limits: HttpLimits; websocket?: WebSocketServer },
): HttpServer {
  const { limits } = options;
  const server = serve({
    fetch: batchAnswers(fetch),
    port: options.port,
    hostname: options.hostname,
    ...(options.websocket ? { websocket: { server: options.websocket } } : {}),
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: MAX_HEADER_BYTES,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
    },
  }) as Server;
  server.on('clientError', onClientError);

  // The open connections, for a stop: the answer under way on each (`_httpMessage`, as above) is
  // told to close. Kept per connection, not per request: a listener on every request and its
  // response cost more than the rest of the server's own work on a small answer.
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  return {
    server,
    close() {
      // requests that arrive from now on, and those already under way
      server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => res.setHeader('Connection', 'close'));
      for (const socket of connections) {
        const res = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
        if (res && !res.headersSent) res.setHeader('Connection', 'close');
      }
      return new Promise<void>((resolve, reject) => {
        let idle: NodeJS.Timeout | undefined;
        const grace = setTimeout(() => {
          server.closeIdleConnections();
          // a connection whose answer is still being written goes idle later: close it then
          idle = setInterval(() => server.closeIdleConnections(), 50);
        }, CLOSE_GRACE_MS);
        // the plain socket server's close: stop listening without closing idle connections yet
        NetServer.prototype.close.call(server, (err?: Error) => {
          clearTimeout(grace);
          clearInterval(idle);
          if (err && (err as NodeJS.ErrnoException).code !== 'ERR_SERVER_NOT_RUNNING') reject(err);
          else resolve();
        });
      });
    },
  };
}
