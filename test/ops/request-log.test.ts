/**
 * Request ids and the request log: one JSON line per request with id, method, route pattern,
 * status and duration; the caller's id honoured when safe; `key` never logged; handlers log with
 * the request's id.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createLogger } from '../../src/log.js';
import { plainRequestLine, redactUrl, requestIdFrom, writesPlainLines } from '../../src/http/middleware/request-log.js';
import type { SearchEngine } from '../../src/search/engine.js';
import { insertKey, insertUser } from '../http/harness.js';
import { startOps, type LogLine, type OpsHarness } from './support.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The request line of the request with this id (the log is written when the answer is sent). */
async function requestLine(h: OpsHarness, reqId: string): Promise<LogLine> {
  for (let i = 0; i < 50; i++) {
    const line = h.lines.find((l) => l.reqId === reqId && l.msg === 'request');
    if (line) return line;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no request line for ${reqId}`);
}

describe('request ids and the request log', () => {
  let h: OpsHarness;
  beforeAll(async () => {
    // searches fail in this app: the search engine throws
    const failing = new Proxy({ kind: 'embedded' } as SearchEngine, {
      get: (t, p) => (p === 'kind' ? t.kind : p === 'then' ? undefined : () => Promise.reject(new Error('engine exploded'))),
    });
    h = await startOps({
      env: { RATE_LIMITS: 'off' },
      deps: { engine: failing },
      routes: (app) =>
        app.get('/test/handler-log', (c) => {
          c.get('log').info({ step: 'inside' }, 'from the handler');
          return c.text(c.get('requestId'));
        }),
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('gives every request an id, echoed in X-Request-Id, and logs one line with route, status and time', async () => {
    const res = await h.request('/api/v1/json/images/12345');
    expect(res.status).toBe(404);
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(UUID);
    const line = await requestLine(h, id);
    expect(line).toMatchObject({
      level: 30,
      service: 'tagwise',
      reqId: id,
      method: 'GET',
      route: '/api/v1/json/images/:image_id',
      url: '/api/v1/json/images/12345',
      status: 404,
      msg: 'request',
    });
    expect(typeof line.ms).toBe('number');
    expect(line.ms as number).toBeGreaterThanOrEqual(0);
    expect(typeof line.time).toBe('string');
    expect(h.lines.filter((l) => l.reqId === id && l.msg === 'request')).toHaveLength(1);
  });

  it('logs a fixed name answered inside a parameter route under a route of its own', async () => {
    const cases: Array<[string, string]> = [
      ['/api/v1/json/images/featured', '/api/v1/json/images/featured'],
      ['/api/v1/json/filters/system', '/api/v1/json/filters/system'],
      ['/api/v1/json/filters/12345', '/api/v1/json/filters/:filter_id'],
      ['/dumps/latest/manifest.json', '/dumps/latest/:file'],
      ['/dumps/latest.json', '/dumps/latest.json'],
    ];
    for (const [path, route] of cases) {
      const res = await h.request(path, { headers: { 'X-Request-Id': `named-${cases.findIndex((x) => x[0] === path)}` } });
      await res.arrayBuffer();
      expect((await requestLine(h, res.headers.get('x-request-id')!)).route, path).toBe(route);
    }
  });

  it("honours the caller's X-Request-Id when it is a short safe token, else makes one", async () => {
    const mine = await h.request('/api/v1/json/tags/1', { headers: { 'X-Request-Id': 'proxy-4f2a.91:7' } });
    expect(mine.headers.get('x-request-id')).toBe('proxy-4f2a.91:7');
    expect((await requestLine(h, 'proxy-4f2a.91:7')).route).toBe('/api/v1/json/tags/:tag_id');
    for (const bad of ['has space', 'x'.repeat(65), 'quote"s', '{"json":1}', '-leading-dash']) {
      const res = await h.request('/api/v1/json/tags/1', { headers: { 'X-Request-Id': bad } });
      expect(res.headers.get('x-request-id'), bad).toMatch(UUID);
    }
    expect(requestIdFrom(undefined)).toMatch(UUID);
    expect(requestIdFrom('abc')).toBe('abc');
  });

  it('never logs the key, in any spelling of the parameter', async () => {
    const user = await insertUser(h.db, { confirmedAt: new Date() });
    const key = await insertKey(h.db, user.id);
    const res = await h.request(`/api/v1/json/images/1?per_page=5&key=${key}&KEY=${key}x&k%65y=${key}y`);
    const line = await requestLine(h, res.headers.get('x-request-id')!);
    expect(line.url).toBe('/api/v1/json/images/1?per_page=5&key=[redacted]&KEY=[redacted]&k%65y=[redacted]');
    expect(h.raw()).not.toContain(key);
    expect(redactUrl('/a?keyword=x&key=')).toBe('/a?keyword=x&key=[redacted]');
    expect(redactUrl('/a?key')).toBe('/a?key=[redacted]');
    expect(redactUrl('/a')).toBe('/a');
    // spellings with no `key` in their letters: escapes and `+` (a space) around it
    expect(redactUrl('/a?%4B%45%59=s&q=x')).toBe('/a?%4B%45%59=[redacted]&q=x');
    expect(redactUrl('/a?+key+=s')).toBe('/a?+key+=[redacted]');
    expect(redactUrl('/a?Key=s')).toBe('/a?Key=[redacted]');
    expect(redactUrl('/a?q=safe,solo&page=2')).toBe('/a?q=safe,solo&page=2');
  });

  it('logs failures at error level with the error, under the request id', async () => {
    const res = await h.request('/api/v1/json/search/images?q=safe', { headers: { 'X-Request-Id': 'failing-search-1' } });
    expect(res.status).toBe(500);
    expect(res.headers.get('x-request-id')).toBe('failing-search-1');
    const line = await requestLine(h, 'failing-search-1');
    expect(line).toMatchObject({ level: 50, status: 500, route: '/api/v1/json/search/images' });
    expect(JSON.stringify(line.err)).toContain('engine exploded');
  });

  it('logs a client that hangs up in the middle of its body as 499 at info level, not as the database unavailable', async () => {
    const port = Number(new URL(h.url).port);
    const user = await insertUser(h.db, { confirmedAt: new Date() });
    const submit = `/api/v1/json/images?key=${await insertKey(h.db, user.id)}`;
    for (const [id, path, type, part, framing] of [
      ['hangup-json', '/api/v1/json/search/reverse', 'application/json', '{"url":"https://exa', 'Transfer-Encoding: chunked'],
      ['hangup-multipart', '/api/v1/json/search/reverse', 'multipart/form-data; boundary=x', '--x\r\nContent-Disposition: form-data; name="image"; filename="a.png"\r\n\r\n\x89PNG', 'Transfer-Encoding: chunked'],
      ['hangup-submit', submit, 'application/json', '{"url":"https://exa', 'Content-Length: 1000'],
    ] as const) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${id}\r\nContent-Type: ${type}\r\n${framing}\r\n\r\n`);
      socket.write(framing.startsWith('Content-Length') ? part : `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n`);
      await new Promise((r) => setTimeout(r, 200));
      socket.destroy();
      const line = await requestLine(h, id);
      expect(line.level, id).toBeLessThan(50);
      expect(line.status, id).not.toBeGreaterThanOrEqual(500);
    }
    expect(h.lines.filter((l) => l.msg === 'database unavailable')).toEqual([]);
    expect(await requestLine(h, 'hangup-json')).toMatchObject({ level: 30, status: 499 });
    expect(await requestLine(h, 'hangup-submit')).toMatchObject({ level: 30, status: 499 });
  });

  it('gives handlers a logger carrying the request id', async () => {
    const res = await h.request('/test/handler-log', { headers: { 'X-Request-Id': 'handler-1' } });
    expect(await res.text()).toBe('handler-1');
    const own = h.lines.find((l) => l.msg === 'from the handler');
    expect(own).toMatchObject({ level: 30, reqId: 'handler-1', step: 'inside' });
    expect(await requestLine(h, 'handler-1')).toMatchObject({ route: '/test/handler-log', status: 200 });
  });

  it('lets cross-origin scripts read the request id, and Retry-After when there is one', async () => {
    const res = await h.request('/api/v1/json/images/1');
    expect(res.headers.get('access-control-expose-headers')).toBe('X-Request-Id');
  });

  it('cuts very long URLs in the log', async () => {
    const res = await h.request(`/api/v1/json/images/1?q=${'a'.repeat(5000)}`);
    const line = await requestLine(h, res.headers.get('x-request-id')!);
    expect((line.url as string).length).toBeLessThanOrEqual(2049);
  });

  it('logs probes at debug level only', async () => {
    const res = await h.request('/healthz');
    const line = await requestLine(h, res.headers.get('x-request-id')!);
    expect(line.level).toBe(20);
  });

  it('answers unknown paths with an id too, with a route pattern rather than the raw path', async () => {
    const res = await h.request('/no/such/path/123');
    expect(res.status).toBe(404);
    const line = await requestLine(h, res.headers.get('x-request-id')!);
    expect(line.route).toBe('/*');
    expect(line.url).toBe('/no/such/path/123');
  });
});

describe('a request line made directly', () => {
  /** Each line a logger writes, as text. */
  function capture() {
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk, _enc, done) {
        lines.push(String(chunk));
        done();
      },
    });
    return { lines, stream };
  }

  it('is the text pino writes for the same fields, escapes included', async () => {
    const { lines, stream } = capture();
    const logger = createLogger({ logLevel: 'debug' }, stream);
    expect(writesPlainLines(logger)).toBe(true);
    const fields = [
      { reqId: 'a1', method: 'GET', route: '/api/v1/json/search/images', url: '/api/v1/json/search/images?q=safe%2C+solo', status: 200, ms: 0.4 },
      { reqId: 'b-2', method: 'GET', route: '/x', url: '/x?q="quoted"\\back\nline\u0001é✓', status: 404, ms: 12 },
      { reqId: 'c', method: 'POST', route: '/y', url: `/${'long'.repeat(40)}`, status: 503, ms: 1234.5 },
    ];
    for (const level of ['info', 'debug', 'error'] as const) {
      for (const line of fields) {
        // the clock is read once a millisecond: the two lines are made in the same one, or made again
        for (let attempt = 0; attempt < 5; attempt++) {
          lines.length = 0;
          const mine = plainRequestLine(logger, level, line);
          logger[level](line, 'request');
          await new Promise((r) => setImmediate(r));
          if (lines.join('') === mine || attempt === 4) {
            expect(lines.join('')).toBe(mine);
            break;
          }
        }
      }
    }
  });

  it('is not made for a logger that shapes its lines itself', () => {
    const { stream } = capture();
    expect(writesPlainLines(pino({ mixin: () => ({ extra: 1 }) }, stream))).toBe(false);
    expect(writesPlainLines(pino({ formatters: { log: (o) => o } }, stream))).toBe(false);
    expect(writesPlainLines(pino({ messageKey: 'message' }, stream))).toBe(false);
    expect(writesPlainLines(pino({ nestedKey: 'payload' }, stream))).toBe(false);
    expect(writesPlainLines(pino({ msgPrefix: '[x] ' }, stream))).toBe(false);
    expect(writesPlainLines(pino({}, pino.multistream([{ stream }])))).toBe(false);
    expect(writesPlainLines(pino({}, stream))).toBe(true);
  });
});
