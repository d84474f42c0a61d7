/**
 * One request header by name. Under the Node server the value is read from Node's own parsed
 * headers: asking the request for a header would make `@hono/node-server` build a `Headers`
 * object of every header the client sent, a cost each request paid only to read one or two.
 * Node joins repeated headers with `, ` as `Headers.get` does. Without a Node request (the app
 * called directly, as tests do) the request's `Headers` answer.
 */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

export function requestHeader(c: Context, lowerCaseName: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming?.headers === undefined) return c.req.header(lowerCaseName);
  const value = incoming.headers[lowerCaseName];
  return Array.isArray(value) ? value.join(', ') : value;
}
