import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection } from '../../bench/harness/driver.js';

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
