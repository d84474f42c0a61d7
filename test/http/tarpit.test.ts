/**
 * The tarpit (src/http/server/tarpit.ts) over real HTTP, served by the service's own Node server
 * (src/http/server/server.ts) and asked by undici's fetch with multipart bodies of a few hundred KB.
 * The route under test refuses every request of one client with the Retry-After its query names,
 * and the tarpit's pause is longer than a test may take: a refusal that answers at all was not
 * held, and a held one answers only when the tarpit is released (as at shutdown).
 */
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/http/env/context.js';
import { tooManyResponse } from '../../src/http/middleware/limits.js';
import { startHttpServer, type HttpServer } from '../../src/http/server/server.js';
import { Tarpit } from '../../src/http/server/tarpit.js';
import { readAnswer } from '../support/answer.js';
import { waitUntil } from '../support/wait.js';

const FOREVER_MS = 10 * 60_000;
const BODY_BYTES = 600_000;

interface Served {
  tarpit: Tarpit;
  stopping: AbortController;
  http: HttpServer;
  origin: string;
  /** Bytes each closed connection had read from its client, in order of closing. */
  readByClosed: number[];
}

let served: Served | undefined;

afterEach(async () => {
  served?.stopping.abort();
  await served?.http.close();
  served = undefined;
});

async function serveTarpit(maxHeld: number): Promise<Served> {
  const stopping = new AbortController();
  const tarpit = new Tarpit({ pauseMs: FOREVER_MS, maxHeld, signal: stopping.signal });
  const app = new Hono<AppEnv>();
  app.post('/refused', (c) => {
    const wait = Number(c.req.query('retry') ?? '300');
    return tarpit.hold(c, `client:${c.req.query('client') ?? 'a'}`, wait, () => tooManyResponse(c, wait));
  });
  const http = startHttpServer(app.fetch, {
    port: 0,
    hostname: '127.0.0.1',
    limits: { headersTimeoutMs: 10_000, requestTimeoutMs: FOREVER_MS, keepAliveTimeoutMs: 5_000 },
  });
  await new Promise<void>((resolve) => (http.server.listening ? resolve() : http.server.once('listening', () => resolve())));
  const readByClosed: number[] = [];
  http.server.on('connection', (socket: Socket) => socket.once('close', () => readByClosed.push(socket.bytesRead)));
  const { port } = http.server.address() as AddressInfo;
  served = { tarpit, stopping, http, origin: `http://127.0.0.1:${port}`, readByClosed };
  return served;
}

/** A multipart POST of a BODY_BYTES file, as a client that resends its upload would send it. */
async function post(s: Served, query: string) {
  const form = new FormData();
  form.set('image', new Blob([new Uint8Array(BODY_BYTES).fill(7)], { type: 'image/png' }), 'a.png');
  return readAnswer(await fetch(`${s.origin}/refused?${query}`, { method: 'POST', body: form }));
}

const tooMany = (seconds: number) => ({ error: `Too many requests: slow down and retry after ${seconds} seconds` });

describe('the tarpit', () => {
  it('answers a first refusal at once on a kept-alive connection, holds a repeat one, unread, until released, then answers 429 with Retry-After and Connection: close', async () => {
    const s = await serveTarpit(8);
    const first = await post(s, 'retry=300');
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('300');
    expect(first.headers.get('connection')).toBe('keep-alive');
    expect(first.body).toEqual(tooMany(300));

    const repeat = post(s, 'retry=300');
    await waitUntil('the repeat refusal to be held', () => s.tarpit.held === 1, 10_000, 20);
    const closedBefore = s.readByClosed.length;
    s.stopping.abort();
    const answer = await repeat;
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('300');
    expect(answer.headers.get('connection')).toBe('close');
    expect(answer.body).toEqual(tooMany(300));
    // The connection was closed after the answer, with most of the body never read.
    await waitUntil('the held connection to close', () => s.readByClosed.length > closedBefore, 10_000, 20);
    expect(s.readByClosed.at(-1)).toBeLessThan(BODY_BYTES / 2);
    expect(s.tarpit.held).toBe(0);
  });

  it('does not hold a client that waited its Retry-After, nor another client', async () => {
    const s = await serveTarpit(8);
    expect((await post(s, 'retry=1')).status).toBe(429);
    expect((await post(s, 'client=b&retry=300')).headers.get('connection')).toBe('keep-alive');
    await sleep(1_100);
    // Held, this would wait for as long as the test may run.
    const after = await post(s, 'retry=300');
    expect(after).toMatchObject({ status: 429, body: tooMany(300) });
    expect(after.headers.get('connection')).toBe('keep-alive');
    expect(s.tarpit.held).toBe(0);
  });

  it('holds at most maxHeld refusals; beyond, answers at once with Connection: close', async () => {
    const s = await serveTarpit(3);
    expect((await post(s, 'retry=300')).status).toBe(429);
    const held = [post(s, 'retry=300'), post(s, 'retry=300'), post(s, 'retry=300')];
    await waitUntil('three refusals held', () => s.tarpit.held === 3, 10_000, 20);
    const beyond = await post(s, 'retry=300');
    expect(beyond).toMatchObject({ status: 429, body: tooMany(300) });
    expect(beyond.headers.get('connection')).toBe('close');
    expect(s.tarpit.held).toBe(3);
    s.stopping.abort();
    for (const answer of await Promise.all(held)) expect(answer).toMatchObject({ status: 429, body: tooMany(300) });
  });

  it('answers every held refusal when the server stops, and the stop completes', async () => {
    const s = await serveTarpit(8);
    expect((await post(s, 'retry=300')).status).toBe(429);
    const held = [post(s, 'retry=300'), post(s, 'retry=300')];
    await waitUntil('two refusals held', () => s.tarpit.held === 2, 10_000, 20);
    // What the service does at SIGTERM (src/main.ts): abort the app's shutdown signal, then close the server.
    s.stopping.abort();
    const [answers] = await Promise.all([Promise.all(held), s.http.close()]);
    for (const answer of answers) {
      expect(answer).toMatchObject({ status: 429, body: tooMany(300) });
      expect(answer.headers.get('connection')).toBe('close');
    }
    served = undefined;
  });
});
