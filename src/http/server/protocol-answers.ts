/**
 * JSON answers for requests that Node or @hono/node-server would otherwise answer themselves, with
 * an empty or plain-text body, before the app sees them (src/http/server/server.ts wires them in):
 *
 * - what Node's parser refuses (`clientError`): a request line or headers over `MAX_HEADER_BYTES`
 *   (431), a broken request line or control characters (400), a request too slow to arrive (408);
 * - an `Expect` other than `100-continue` (417, `checkExpectation`);
 * - `OPTIONS *`, a question about the server as a whole (RFC 9110 §9.3.7): 200 with `Allow`;
 * - an HTTP/1.1 request without `Host` (400, as RFC 9112 §3.2 requires), and a request the adapter
 *   cannot make a URL of: a malformed `Host`, a target that is not a path (400, its `errorHandler`).
 *
 * Each answer closes the connection; what the client is still sending is read and dropped for a
 * short while first, so that a client that sent a long URL reads the answer instead of a reset.
 * `100 Continue` is sent only once the app starts reading the body (`checkContinue`): a refusal
 * made before that is answered without the client ever sending its body.
 */
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { RequestError } from '@hono/node-server';

/** Bytes of request line plus headers Node accepts (its default); the URL limit the docs state. */
export const MAX_HEADER_BYTES = 16_384;

/** How long the rest of a refused request is read before its socket is destroyed. */
const DISCARD_MS = 2_000;

/** The methods the API answers, for `OPTIONS *`. */
const ALLOWED_METHODS = 'GET, HEAD, POST, OPTIONS';

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

const jsonError = (message: string) => JSON.stringify({ error: message });

/** Once the answer on `socket` is written: read and drop what still comes, then close. */
export function closeAfterAnswer(socket: Socket): void {
  socket.on('data', () => {}); // so that unread input does not turn the close into a reset
  socket.on('error', () => {});
  socket.end();
  setTimeout(() => socket.destroy(), DISCARD_MS).unref();
}

function clientErrorAnswer(code: string | undefined): { status: number; reason: string; message: string } {
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { status: 431, reason: 'Request Header Fields Too Large', message: `Request line and headers exceed ${MAX_HEADER_BYTES} bytes; send long queries in fewer characters` };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, reason: 'Request Timeout', message: 'Request took too long to arrive' };
  return { status: 400, reason: 'Bad Request', message: 'Malformed HTTP request' };
}

/** Node's `clientError`: answer in the API's JSON error shape, then let the client finish sending. */
export function onClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // a reset connection, or a response already under way on it: a second one would corrupt it
  if (err.code === 'ECONNRESET' || !socket.writable || (socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const { status, reason, message } = clientErrorAnswer(err.code);
  const body = jsonError(message);
  socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  closeAfterAnswer(socket);
}

/** A JSON answer on `res`, closing the connection after it. */
export function answerJson(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.shouldKeepAlive = false;
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** Node's `checkExpectation`: an `Expect` the server does not meet. */
export function onUnmetExpectation(_req: IncomingMessage, res: ServerResponse): void {
  answerJson(res, 417, jsonError('Expectation Failed: the only Expect supported is 100-continue'));
}

/**
 * Node's `checkContinue` (`Expect: 100-continue`): the request goes to `listener` at once, and the
 * `100 Continue` that asks for the body is sent only when something starts reading the body.
 */
export function continueWhenRead(listener: RequestListener): RequestListener {
  return (req, res) => {
    const onListener = (event: string | symbol) => {
      if (event !== 'data' && event !== 'readable') return;
      req.off('newListener', onListener);
      if (!res.headersSent && !res.writableEnded) res.writeContinue();
    };
    req.on('newListener', onListener);
    listener(req, res);
  };
}

/** The adapter's `errorHandler`: a request it cannot turn into a URL is the client's fault. */
export function requestErrorAnswer(err: unknown): Response {
  const headers = { 'Content-Type': 'application/json', Connection: 'close' };
  if (err instanceof RequestError) return new Response(jsonError(`Malformed HTTP request: ${err.message}`), { status: 400, headers });
  return new Response(jsonError('Internal Error'), { status: 500, headers });
}

/** Requests answered before the adapter builds one: `OPTIONS *`, and HTTP/1.1 without `Host`. */
export function answerServerWide(listener: RequestListener): RequestListener {
  return (req, res) => {
    if (req.url === '*' && req.method === 'OPTIONS') {
      return answerJson(res, 200, JSON.stringify({ allow: ALLOWED_METHODS.split(', ') }), { Allow: ALLOWED_METHODS });
    }
    if (req.headers.host === undefined && req.httpVersion === '1.1') return answerJson(res, 400, jsonError('Malformed HTTP request: Missing host header'));
    listener(req, res);
  };
}
