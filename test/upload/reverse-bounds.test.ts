/**
 * Reverse searches per client (REVERSE_SEARCH_CONCURRENCY, REVERSE_SEARCH_RATE), over real HTTP
 * with the request limits off: a client's third search while two are still sending is 429, the
 * searches over the rate are 429 with the wait the rate gives, both before the body is read, with
 * the JSON error body; another client is not affected, and a search that ends frees its place. A
 * client refused again before its Retry-After gets the same 429 after a pause, with
 * `Connection: close` (the tarpit; test/http/tarpit.test.ts holds it to the rest).
 */
import http from 'node:http';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUploadHarness, userWithKey, type UploadHarness } from './harness.js';

let h: UploadHarness;

beforeAll(async () => {
  h = await startUploadHarness({ search: true, env: { RATE_LIMITS: 'off', REVERSE_SEARCH_CONCURRENCY: '2', REVERSE_SEARCH_RATE: '20/1m' } });
});

afterAll(async () => {
  await h?.close();
});

const EMPTY = { images: [], interactions: [], total: 0 };

/** A multipart reverse search that sends its part's headers and then waits: a search in flight. */
function heldSearch(): { request: http.ClientRequest; answered: Promise<number>; settled: () => boolean } {
  const url = new URL(h.url);
  const head = '--b\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n';
  const request = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/api/v1/json/search/reverse', headers: { 'content-type': 'multipart/form-data; boundary=b', 'content-length': '100000' } });
  const answered = new Promise<number>((resolve) => {
    request.on('response', (res) => resolve(res.statusCode ?? 0));
    request.on('error', () => resolve(0));
  });
  request.write(head);
  let done = false;
  void answered.then(() => {
    done = true;
  });
  return { request, answered, settled: () => done };
}

async function searchFile(key?: string) {
  const form = new FormData();
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#808080' } }).png().toBuffer();
  form.set('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'a.png');
  return h.api(`/search/reverse${key ? `?key=${key}` : ''}`, { method: 'POST', body: form });
}

describe('reverse searches per client', () => {
  it('refuses a third search while two are running, with Retry-After and the JSON error, and admits one when a place frees', async () => {
    const connected = (search: ReturnType<typeof heldSearch>) =>
      new Promise((r) => search.request.once('socket', (socket) => socket.once('connect', r))).then(() => search);
    const held = await Promise.all([connected(heldSearch()), connected(heldSearch())]);
    try {
    // Until both are inside (each holds its place once its headers are read), probes are served;
    // a held search that arrived while a probe was running was rightly refused: it is sent again.
    for (let i = 0; i < 15; i++) {
      for (const [j, search] of held.entries()) if (search.settled()) held[j] = await connected(heldSearch());
      const probe = await searchFile();
      if (probe.status === 429) {
        expect(probe.headers.get('retry-after')).toBe('1');
        expect(probe.body).toEqual({ error: 'Too many requests: slow down and retry after 1 seconds' });
        break;
      }
      expect(i).toBeLessThan(14);
      await new Promise((r) => setTimeout(r, 100));
    }
    const other = await searchFile((await userWithKey(h.db)).key);
    expect(other).toMatchObject({ status: 200, body: EMPTY });
    held[0]!.request.destroy();
    await held[0]!.answered;
    let admitted = 0;
    for (let i = 0; i < 15 && admitted === 0; i++) {
      if ((await searchFile()).status === 200) admitted++;
      else await new Promise((r) => setTimeout(r, 20));
    }
    expect(admitted).toBe(1);
    } finally {
      for (const { request } of held) request.destroy();
    }
  });

  it('refuses searches over the rate with the wait the rate gives', async () => {
    const { key } = await userWithKey(h.db);
    // 20 a minute is a burst of 20 and one more every 3 s: on a slow machine the searches
    // themselves take seconds, so the places refilled meanwhile are allowed for.
    const started = Date.now();
    let served = 0;
    let refused: Awaited<ReturnType<typeof searchFile>> | undefined;
    for (let i = 0; i < 80 && !refused; i++) {
      const res = await searchFile(key);
      if (res.status === 429) refused = res;
      else {
        expect(res.status).toBe(200);
        served++;
      }
    }
    const refilled = Math.ceil((Date.now() - started) / 3000);
    expect(served).toBeGreaterThanOrEqual(20);
    expect(served).toBeLessThanOrEqual(20 + refilled);
    const wait = refused!.headers.get('retry-after');
    expect(['1', '2', '3']).toContain(wait);
    expect(refused!.body).toEqual({ error: `Too many requests: slow down and retry after ${wait} seconds` });
    expect(refused!.headers.get('connection')).toBe('keep-alive');

    // Sent again at once, with a file of a few hundred KB: the same 429, given after a pause (the
    // tarpit: about a second, never more than the wait), closing the connection.
    const form = new FormData();
    form.set('image', new Blob([new Uint8Array(400_000)], { type: 'image/png' }), 'b.png');
    const sent = Date.now();
    const again = await h.api(`/search/reverse?key=${key}`, { method: 'POST', body: form });
    const paused = Date.now() - sent;
    expect(again.status).toBe(429);
    expect(again.headers.get('connection')).toBe('close');
    const waitAgain = again.headers.get('retry-after');
    expect(['1', '2', '3']).toContain(waitAgain);
    expect(again.body).toEqual({ error: `Too many requests: slow down and retry after ${waitAgain} seconds` });
    expect(paused).toBeGreaterThanOrEqual(900);
  });

});
