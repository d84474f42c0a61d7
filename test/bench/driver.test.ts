import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DriverPhase } from '../../bench/harness/driver.js';
import { Connection } from '../../bench/harness/driver.js';
import { drive } from '../../bench/harness/http.js';

const body = 'x'.repeat(100_000);

function listen(server: Server | ReturnType<typeof createNetServer>): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)));
}

describe('the load driver reads answers as a client would', () => {
  let http: Server;
  let port = 0;
  beforeAll(async () => {
    http = createHttpServer((req, res) => {
      if (req.url === '/length') res.end(body);
      else if (req.url === '/chunked') {
        res.write(body.slice(0, 30_000));
        setTimeout(() => res.end(body.slice(30_000)), 5);
      } else if (req.url === '/not-modified') res.writeHead(304).end();
      else if (req.url === '/close') res.writeHead(404, { Connection: 'close' }).end('{"error":"Not found"}');
      else res.writeHead(400).end();
    });
    port = await listen(http);
  });
  afterAll(() => new Promise<void>((done) => http.close(() => done())));

  it('counts the bytes of fixed-length and chunked bodies on one kept-alive connection', async () => {
    const connection = new Connection('127.0.0.1', port);
    for (const path of ['/length', '/chunked', '/length', '/not-modified', '/chunked']) {
      const answer = await connection.get(path);
      expect(answer).toEqual(path === '/not-modified' ? { status: 304, bodyBytes: 0 } : { status: 200, bodyBytes: body.length });
    }
    connection.close();
  });

  it('opens a new connection when the server closes one', async () => {
    const connection = new Connection('127.0.0.1', port);
    expect(await connection.get('/close')).toEqual({ status: 404, bodyBytes: 21 });
    expect(await connection.get('/length')).toEqual({ status: 200, bodyBytes: body.length });
    connection.close();
  });

  it('reads a head and chunk sizes split across packets', async () => {
    const raw = createNetServer((socket) => {
      socket.once('data', () => {
        const parts = ['HTTP/1.1 200 OK\r\nTransfer-Enc', 'oding: chunked\r\n\r', '\n5\r', '\nhello\r\n1', '0\r\n0123456789abcdef\r\n0\r\n\r\n'];
        let i = 0;
        const next = () => {
          if (i < parts.length) socket.write(parts[i++]!, () => setTimeout(next, 2));
        };
        next();
      });
    });
    const rawPort = await listen(raw);
    const connection = new Connection('127.0.0.1', rawPort);
    expect(await connection.get('/')).toEqual({ status: 200, bodyBytes: 21 });
    connection.close();
    await new Promise<void>((done) => raw.close(() => done()));
  });

  it('fails a request when the connection drops mid-answer', async () => {
    const raw = createNetServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')));
    const rawPort = await listen(raw);
    const connection = new Connection('127.0.0.1', rawPort);
    await expect(connection.get('/')).rejects.toThrow(/closed the connection/);
    await new Promise<void>((done) => raw.close(() => done()));
  });
});

describe('the load driver process', () => {
  it('counts answers per route group, socket errors by code, and stops at a request count', async () => {
    let answered = 0;
    const server = createHttpServer((req, res) => {
      if (req.url === '/drop') return req.socket.destroy();
      answered++;
      res.writeHead(req.url === '/ok' ? 200 : 404).end('{}');
    });
    const port = await listen(server);
    const phases: DriverPhase[] = [];
    try {
      const result = await drive(
        {
          origin: `http://127.0.0.1:${port}`,
          paths: ['/ok', '/missing', '/drop', '/ok'],
          groupOf: [0, 1, 2, 0],
          groups: ['ok', 'missing', 'drop'],
          connections: 2,
          seconds: 30,
          warmupSeconds: 0,
          maxRequests: 40,
        },
        (phase) => phases.push(phase),
      );
      expect(result.stoppedByCount).toBe(true);
      expect(result.allRequests).toBe(40);
      expect(phases).toEqual(['measure', 'end']);
      const [ok, missing, drop] = result.byGroup;
      expect(ok).toMatchObject({ errors: 0, statuses: { 200: ok!.requests } });
      expect(missing).toMatchObject({ errors: missing!.requests, statuses: { 404: missing!.requests } });
      expect(drop!.requests).toBe(0);
      expect(Object.values(drop!.socketErrors).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      // Answers that arrive after the window closed (another connection reached the count) are not
      // measured: at most one a connection.
      expect(result.requests).toBe(ok!.requests + missing!.requests);
      expect(answered - result.requests).toBeGreaterThanOrEqual(0);
      expect(answered - result.requests).toBeLessThanOrEqual(2);
      expect(result.errors).toBe(missing!.requests);
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('counts only the measured window toward the request count: a long warm-up leaves it whole', async () => {
    const server = createHttpServer((_req, res) => res.writeHead(200).end('{}'));
    const port = await listen(server);
    try {
      const result = await drive({ origin: `http://127.0.0.1:${port}`, paths: ['/'], connections: 2, seconds: 30, warmupSeconds: 1, maxRequests: 50 }, () => {});
      // a second of warm-up sends far more than 50 requests to a local server
      expect(result.allRequests).toBeGreaterThan(200);
      expect(result.stoppedByCount).toBe(true);
      expect(result.requests).toBeGreaterThanOrEqual(48);
      expect(result.requests).toBeLessThanOrEqual(50);
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
