/**
 * What a cacheable JSON GET puts on the wire, read from a raw socket: its header lines, names
 * spelled and ordered as the app wrote them before its answers were made complete in one record
 * (names in lower case and sorted, `Content-Length` last of the app's, then Node's own), the
 * body's length, and the same for its 304 and for a HEAD. A client comparing bytes would notice any change.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertFilter, insertImage, insertTag, startHarness, type Harness } from './harness.js';

let h: Harness;
let imageId: number;

beforeAll(async () => {
  h = await startHarness();
  const safe = await insertTag(h.db, 'safe', { category: 'rating' });
  await insertFilter(h.db, { name: 'Default', system: true });
  imageId = (await insertImage(h.db, { tags: [safe] })).id;
});

afterAll(async () => {
  await h?.close();
});

/** One request on its own connection; the answer's head lines and body, as sent. */
function exchange(method: string, path: string, headers: string[] = []): Promise<{ head: string[]; body: string }> {
  const { hostname, port } = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${hostname}\r\n${headers.map((x) => `${x}\r\n`).join('')}Connection: close\r\n\r\n`);
    });
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const split = text.indexOf('\r\n\r\n');
      resolve({ head: text.slice(0, split).split('\r\n'), body: text.slice(split + 4) });
    });
  });
}

const names = (head: string[]) => head.slice(1).map((line) => line.slice(0, line.indexOf(':')));
const value = (head: string[], name: string) => head.find((line) => line.startsWith(`${name}: `))?.slice(name.length + 2);

describe('a cacheable JSON GET on the wire', () => {
  it('has its headers in the order and spelling of before, and the body its length says', async () => {
    const { head, body } = await exchange('GET', `/api/v1/json/images/${imageId}`, ['X-Request-Id: wire-1']);
    expect(head[0]).toBe('HTTP/1.1 200 OK');
    expect(names(head)).toEqual([
      'access-control-allow-origin', 'access-control-expose-headers', 'cache-control', 'content-type', 'etag', 'vary', 'x-request-id',
      'Content-Length', 'Date', 'Connection',
    ]);
    expect(value(head, 'access-control-allow-origin')).toBe('*');
    expect(value(head, 'access-control-expose-headers')).toBe('X-Request-Id');
    expect(value(head, 'cache-control')).toBe('public, max-age=60');
    expect(value(head, 'content-type')).toBe('application/json');
    expect(value(head, 'vary')).toBe('Accept-Encoding');
    expect(value(head, 'x-request-id')).toBe('wire-1');
    expect(Number(value(head, 'Content-Length'))).toBe(Buffer.byteLength(Buffer.from(body, 'latin1').toString('utf8')));
    expect((JSON.parse(Buffer.from(body, 'latin1').toString('utf8')) as { image: { id: number } }).image.id).toBe(imageId);
  });

  it('answers a matching If-None-Match 304 with the validators and no body', async () => {
    const etag = value((await exchange('GET', `/api/v1/json/images/${imageId}`)).head, 'etag')!;
    const { head, body } = await exchange('GET', `/api/v1/json/images/${imageId}`, [`If-None-Match: W/${etag}`, 'X-Request-Id: wire-2']);
    expect(head[0]).toBe('HTTP/1.1 304 Not Modified');
    expect(names(head)).toEqual(['access-control-allow-origin', 'access-control-expose-headers', 'cache-control', 'etag', 'vary', 'x-request-id', 'Date', 'Connection']);
    expect(value(head, 'etag')).toBe(etag);
    expect(value(head, 'x-request-id')).toBe('wire-2');
    expect(body).toBe('');
  });

  it('answers HEAD with the GET headers and no Content-Length, as before', async () => {
    const { head, body } = await exchange('HEAD', `/api/v1/json/images/${imageId}`);
    expect(head[0]).toBe('HTTP/1.1 200 OK');
    expect(names(head)).toEqual([
      'access-control-allow-origin', 'access-control-expose-headers', 'cache-control', 'content-type', 'etag', 'vary', 'x-request-id', 'Date', 'Connection',
    ]);
    expect(body).toBe('');
  });
});
