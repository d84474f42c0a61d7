/**
 * The client address over real connections: the socket's peer address is remembered per
 * connection, and with `TRUST_PROXY` the forwarded header is still read on every request of a
 * kept-alive connection.
 */
import { request as httpRequest, Agent } from 'node:http';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/http/request/client-address.js';
import { serveApp } from './harness.js';

let served: { url: string; close(): Promise<void> };
const agent = new Agent({ keepAlive: true, maxSockets: 1 });

beforeAll(async () => {
  const app = new Hono();
  app.get('/trusted', (c) => c.json({ ip: clientAddress(c, true) ?? null }));
  app.get('/direct', (c) => c.json({ ip: clientAddress(c, false) ?? null }));
  served = await serveApp(app);
});
afterAll(async () => {
  agent.destroy();
  await served.close();
});

/** The address the app saw, and the local port of the connection the request went over. */
function ask(path: string, forwarded?: string): Promise<{ ip: string | null; port: number }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(served.url + path, { agent, headers: forwarded === undefined ? {} : { 'X-Forwarded-For': forwarded } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ ip: (JSON.parse(text) as { ip: string | null }).ip, port: req.socket!.localPort! }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('clientAddress', () => {
  it('is the peer address without TRUST_PROXY, whatever the header says, on every request of a connection', async () => {
    const answers = [await ask('/direct'), await ask('/direct', '198.51.100.7'), await ask('/direct', 'not an address'), await ask('/direct')];
    expect(answers.map((a) => a.ip)).toEqual(['127.0.0.1', '127.0.0.1', '127.0.0.1', '127.0.0.1']);
    // one kept-alive connection: the address was remembered, not the header's
    expect(new Set(answers.map((a) => a.port)).size).toBe(1);
  });

  it('reads the last forwarded entry on each request with TRUST_PROXY, and the peer where there is none', async () => {
    const answers = [
      await ask('/trusted', '192.0.2.5, 198.51.100.7'),
      await ask('/trusted', '198.51.100.8'),
      await ask('/trusted'),
      await ask('/trusted', '::ffff:192.0.2.6'),
      await ask('/trusted', '192.0.2.9, bogus'),
      await ask('/trusted', '2001:db8::1'),
    ];
    expect(answers.map((a) => a.ip)).toEqual(['198.51.100.7', '198.51.100.8', '127.0.0.1', '192.0.2.6', '127.0.0.1', '2001:db8::1']);
    expect(new Set(answers.map((a) => a.port)).size).toBe(1);
  });
});
