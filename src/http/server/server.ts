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
 * - What Node or the adapter would answer without the app (malformed requests, a bogus `Expect`,
 *   `OPTIONS *`, a malformed or missing `Host`, upgrades other than an accepted websocket) is
 *   answered `{"error": …}` with the right status (protocol-answers.ts, upgrades.ts); `100
 *   Continue` waits until the app reads the body, so a refusal comes before the body is sent.
 * - Stopping (`close()`): the listening socket closes at once; from then on every answer,
 *   including those of requests in flight whose headers are not sent yet, says
 *   `Connection: close`, so keep-alive clients stop reusing connections. Connections idle at that
 *   moment are left open for `CLOSE_GRACE_MS` first (Node's own `server.close()` would close them
 *   at once, resetting a request a client is sending just then): a request that arrives meanwhile
 *   is answered, with `Connection: close`. After the grace, connections are closed as they go
 *   idle; `close()` resolves when the last one has.
 */
import { getRequestListener, serve, type ServerType } from '@hono/node-server';
import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { WebSocketServer } from 'ws';
import type { HttpLimits } from '../../config.js';
import { batchAnswers } from './answer-batches.js';
import { answerServerWide, continueWhenRead, MAX_HEADER_BYTES, onClientError, onUnmetExpectation, requestErrorAnswer } from './protocol-answers.js';
import { answerRefusedUpgrades, serveOtherUpgrades } from './upgrades.js';

export interface HttpServer {
  server: ServerType;
  /** Stop accepting, answer with `Connection: close`, close connections as they go idle. */
  close(): Promise<void>;
}

/** How long connections idle at a stop may still bring one last request. */
const CLOSE_GRACE_MS = 1_000;

/** Serve `fetch` on `host:port` with the limits above. */
export function startHttpServer(
  fetch: (req: Request, env?: unknown) => Response | Promise<Response>,
  options: { port: number; hostname: string; limits: HttpLimits; websocket?: WebSocketServer },
): HttpServer {
  const { limits } = options;
  const answered = batchAnswers(fetch);
  // The adapter's request listener with an error handler (serve() builds one without), behind
  // the answers given before it: the server is created with this one.
  const listener = answerServerWide(getRequestListener(answered, { hostname: options.hostname, errorHandler: requestErrorAnswer }));
  const server = serve({
    fetch: answerRefusedUpgrades(answered),
    port: options.port,
    hostname: options.hostname,
    ...(options.websocket ? { websocket: { server: options.websocket } } : {}),
    createServer: ((serverOptions: ServerOptions) => createServer(serverOptions, listener)) as typeof createServer,
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      maxHeaderSize: MAX_HEADER_BYTES,
      connectionsCheckingInterval: Math.min(1_000, limits.headersTimeoutMs),
      // answered in JSON by answerServerWide instead of by Node
      requireHostHeader: false,
    },
  }) as Server;
  server.on('clientError', onClientError);
  server.on('checkExpectation', onUnmetExpectation);
  server.on('checkContinue', continueWhenRead(listener));
  if (options.websocket) serveOtherUpgrades(server, options.websocket, listener);

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
