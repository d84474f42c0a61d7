/**
 * Requests that Node or @hono/node-server used to answer themselves, with an empty or plain-text
 * body, before the app saw them, over raw sockets against the server `src/main.ts` runs: each is
 * answered in the API's JSON error shape with the right status, and the connection then closes.
 * `OPTIONS *`, a bogus `Expect`, a malformed or missing `Host`, websocket upgrades the app or `ws`
 * refuses, and upgrades to anything but a websocket (served as ordinary requests, not left hanging).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOps, type OpsHarness } from './support.js';

let h: OpsHarness;
let port: number;
beforeAll(async () => {
  h = await startOps({ env: { RATE_LIMITS: 'off' } });
  port = Number(new URL(h.url).port);
});
afterAll(async () => {
  await h?.close();
});

/** Everything the server sends for `request` until it closes the connection (at most 5 s). */
function exchange(request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => resolve(text));
    setTimeout(() => socket.destroy(), 5_000).unref();
  });
}

/** The data of a chunked body. */
function dechunk(body: string): string {
  let out = '';
  for (let at = 0; ; ) {
    const line = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.slice(at, line), 16);
    if (!(size > 0)) return out;
    out += body.slice(line + 2, line + 2 + size);
    at = line + 2 + size + 2;
  }
}

/** Status, headers and body (JSON when it parses) of one raw answer. */
function parse(raw: string): { status: number; headers: string; body: unknown } {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end);
  const text = /^transfer-encoding: chunked$/im.test(head) ? dechunk(raw.slice(end + 4)) : raw.slice(end + 4);
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON: the test fails on it */
  }
  return { status: Number(head.split(' ')[1]), headers: head, body };
}

const WS_HEADERS = 'Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

describe('requests answered before the app: JSON with the right status', () => {
  it('OPTIONS *: 200 with Allow', async () => {
    const res = parse(await exchange('OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    expect(res.status).toBe(200);
    expect(res.headers).toMatch(/^allow: GET, HEAD, POST, OPTIONS$/im);
    expect(res.headers).toMatch(/content-type: application\/json/i);
    expect(res.body).toEqual({ allow: ['GET', 'HEAD', 'POST', 'OPTIONS'] });
  });

  it('another method on *: 400', async () => {
    const res = parse(await exchange('GET * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Malformed HTTP request/) } });
  });

  it('an Expect other than 100-continue: 417', async () => {
    const res = parse(await exchange('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: bogus\r\n\r\n'));
    expect(res).toMatchObject({ status: 417, body: { error: expect.stringContaining('100-continue') } });
    expect(res.headers).toMatch(/connection: close/i);
  });

  it('a malformed Host: 400, whatever is wrong with it', async () => {
    for (const host of ['a b', '[::1', 'exa/mple', '@x', 'a\\b']) {
      const res = parse(await exchange(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`));
      expect(res, host).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Malformed HTTP request/) } });
    }
  });

  it('HTTP/1.1 without Host: 400; HTTP/1.0 without one is served', async () => {
    const res = parse(await exchange('GET /healthz HTTP/1.1\r\n\r\n'));
    expect(res).toMatchObject({ status: 400, body: { error: 'Malformed HTTP request: Missing host header' } });
    expect(parse(await exchange('GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
  });
});

describe('upgrades', () => {
  it('a websocket upgrade the socket route refuses: its JSON error, whole', async () => {
    const res = parse(await exchange(`GET /socket/websocket?vsn=9 HTTP/1.1\r\nHost: 127.0.0.1\r\n${WS_HEADERS}\r\n`));
    expect(res).toMatchObject({ status: 400, body: { error: 'unsupported vsn: use 2.0.0 or 1.0.0' } });
    expect(res.headers).toMatch(/connection: close/i);
  });

  it('a websocket handshake ws refuses (no key, a bad version): 400 in JSON', async () => {
    const noKey = parse(await exchange('GET /socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'));
    expect(noKey).toMatchObject({ status: 400, body: { error: expect.stringContaining('Sec-WebSocket-Key') } });
    const badVersion = parse(await exchange(`GET /socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: 127.0.0.1\r\n${WS_HEADERS.replace('Version: 13', 'Version: 99')}\r\n`));
    expect(badVersion).toMatchObject({ status: 400, body: { error: expect.stringContaining('Sec-WebSocket-Version') } });
  });

  it('a websocket upgrade with a malformed Host: 400 in JSON', async () => {
    const res = parse(await exchange(`GET /socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: a b\r\n${WS_HEADERS}\r\n`));
    expect(res).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Malformed HTTP request/) } });
  });

  it('a websocket upgrade elsewhere: the route’s own answer (404 for no route)', async () => {
    const missing = parse(await exchange(`GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\n${WS_HEADERS}\r\n`));
    expect(missing).toMatchObject({ status: 404, body: { error: 'Not found' } });
    const health = parse(await exchange(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n${WS_HEADERS}\r\n`));
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: expect.any(String) });
  });

  it('an upgrade to something else (h2c): served as an ordinary request, not left hanging', async () => {
    const started = Date.now();
    const res = parse(await exchange('GET /nowhere HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n'));
    expect(res).toMatchObject({ status: 404, body: { error: 'Not found' } });
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('a good websocket handshake is still upgraded', async () => {
    const text = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET /socket/websocket?vsn=2.0.0 HTTP/1.1\r\nHost: 127.0.0.1\r\n${WS_HEADERS}\r\n`));
      socket.once('data', (d: Buffer) => {
        socket.destroy();
        resolve(d.toString('latin1'));
      });
    });
    expect(text).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(text).toMatch(/sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=/i);
  });
});
