/**
 * Slow and malformed clients against the server `src/main.ts` runs (`src/http/server/server.ts`), over
 * raw sockets on loopback:
 * - 500 slowloris connections (headers dripping a byte at a time) do not stop other clients, and
 *   each is answered 408 in the JSON error shape once HTTP_HEADERS_TIMEOUT_SECONDS passes;
 * - a body declared as 2 MB that trickles in is cut off at HTTP_REQUEST_TIMEOUT_SECONDS with 408;
 * - what Node refuses before the app sees a request is answered in the JSON error shape: a URL over
 *   16 KB (431, also at 64 KB, read to the end instead of reset), control characters (400).
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOps, type OpsHarness } from './support.js';

let h: OpsHarness;
let port: number;
beforeAll(async () => {
  h = await startOps({ env: { RATE_LIMITS: 'off', HTTP_HEADERS_TIMEOUT_SECONDS: '3', HTTP_REQUEST_TIMEOUT_SECONDS: '4' } });
  port = Number(new URL(h.url).port);
});
afterAll(async () => {
  await h?.close();
});

function open(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the connection, and how it ended. */
function untilClosed(socket: Socket): Promise<{ text: string; error?: string }> {
  return new Promise((resolve) => {
    let text = '';
    let error: string | undefined;
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => resolve({ text, error }));
  });
}

/** Status line and JSON body of one raw answer. */
function parse(raw: string): { status: number; headers: string; body: unknown } {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, end);
  return { status: Number(head.split(' ')[1]), headers: head, body: JSON.parse(raw.slice(end + 4)) };
}

describe('slow clients', () => {
  it('500 slowloris connections do not stop other clients, and each ends in a JSON 408', async () => {
    const sockets: Socket[] = [];
    for (let i = 0; i < 500; i++) sockets.push(await open());
    const ends = sockets.map(untilClosed);
    for (const s of sockets) s.write('GET /api/v1/json/search/images?q=* HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    let drip = 0;
    const dripper = setInterval(() => {
      drip++;
      for (const s of sockets) if (s.writable) s.write(`X-Drip-${drip}: 1\r\n`);
    }, 500);
    try {
      // other clients are served meanwhile
      for (let i = 0; i < 20; i++) {
        const res = await h.json('/api/v1/json/search/images?q=*');
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ total: 0 });
      }
      const answers = await Promise.all(ends);
      for (const a of answers) {
        const res = parse(a.text);
        expect(res.status).toBe(408);
        expect(res.body).toEqual({ error: 'Request took too long to arrive' });
        expect(res.headers).toMatch(/content-type: application\/json/i);
      }
    } finally {
      clearInterval(dripper);
      for (const s of sockets) s.destroy();
    }
    expect((await h.json('/healthz')).status).toBe(200);
  }, 60_000);

  it('a body that trickles in is cut off with a JSON 408 at the request timeout', async () => {
    const socket = await open();
    const end = untilClosed(socket);
    socket.write(
      // a file upload: small JSON bodies are refused by their declared size at once
      'POST /api/v1/json/search/reverse HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=x\r\nContent-Length: 2000000\r\n\r\n' +
        '--x\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n',
    );
    const started = Date.now();
    const dripper = setInterval(() => socket.writable && socket.write('a'), 200);
    const answer = await end;
    clearInterval(dripper);
    const res = parse(answer.text);
    expect(res.status).toBe(408);
    expect(res.body).toEqual({ error: 'Request took too long to arrive' });
    // cut off by the 4 s request timeout, not the drip ending
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);
});

describe('requests Node refuses before the app: JSON errors', () => {
  async function raw(request: string | Buffer): Promise<{ text: string; error?: string }> {
    const socket = await open();
    const end = untilClosed(socket);
    socket.write(request);
    return end;
  }

  it('a URL over 16 KB: 431 with the JSON error shape', async () => {
    const answer = await raw(`GET /api/v1/json/search/images?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const res = parse(answer.text);
    expect(res.status).toBe(431);
    expect(res.body).toEqual({ error: expect.stringContaining('16384 bytes') });
    expect(res.headers).toMatch(/connection: close/i);
  });

  it('a 64 KB URL: 431 read by the client, not a reset', async () => {
    const answer = await raw(`GET /api/v1/json/search/images?q=${'b'.repeat(65_536)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    expect(answer.error).toBeUndefined();
    expect(parse(answer.text).status).toBe(431);
  });

  it('control characters in the request line: 400 with the JSON error shape', async () => {
    const answer = await raw(Buffer.from('GET /api/v1/json/search/images?q=a\x01b HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'latin1'));
    const res = parse(answer.text);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Malformed HTTP request' });
  });

  it('a control character in a header value: 400 with the JSON error shape', async () => {
    const answer = await raw(Buffer.from('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bad: a\x00b\r\n\r\n', 'latin1'));
    expect(parse(answer.text)).toMatchObject({ status: 400, body: { error: 'Malformed HTTP request' } });
  });
});
