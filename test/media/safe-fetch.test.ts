import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, isPublicAddress, safeFetch } from '../../src/media/safe-fetch.js';
import { startHttpsServer, type TestHttpsServer } from '../support/https-server.js';

const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
let server: TestHttpsServer;
let allow: string[];

beforeAll(async () => {
  server = await startHttpsServer((req, res) => {
    const path = req.url ?? '/';
    if (path === '/image.png') return res.writeHead(200, { 'content-type': 'text/html' }).end(png);
    if (path === '/named') return res.writeHead(200, { 'content-disposition': 'attachment; filename="pony art.png"' }).end(png);
    if (path === '/redirect') return res.writeHead(302, { location: '/image.png' }).end();
    if (path === '/loop') return res.writeHead(302, { location: '/loop' }).end();
    if (path === '/to-private') return res.writeHead(302, { location: 'https://10.1.2.3/x.png' }).end();
    if (path === '/to-loopback') return res.writeHead(301, { location: 'https://localhost:8443/x.png' }).end();
    if (path === '/to-metadata') return res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data' }).end();
    if (path === '/to-http') return res.writeHead(302, { location: 'http://example.com/x.png' }).end();
    if (path === '/missing') return res.writeHead(404).end('no');
    if (path === '/huge') {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const pump = () => {
        while (sent < 50 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    if (path === '/drip') {
      // a large answer sent a few bytes at a time, far below the minimum rate
      res.writeHead(200, { 'content-length': String(2_000_000) });
      const drip = setInterval(() => res.write(Buffer.alloc(100, 1)), 200);
      res.on('close', () => clearInterval(drip));
      return;
    }
    if (path === '/slow') return setTimeout(() => res.writeHead(200).end(png), 3_000);
    res.writeHead(404).end();
  });
  allow = [server.hostPort];
});
afterAll(() => server.close());

const failure = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(FetchError);
    return (err as FetchError).code;
  }
  throw new Error('expected a FetchError');
};

describe('safeFetch', () => {
  it('fetches over https from an explicitly allowed host, ignoring the declared type', async () => {
    const got = await safeFetch(`${server.origin}/image.png`, { allowHosts: allow });
    expect(got.bytes.equals(png)).toBe(true);
    expect(got.filename).toBe('image.png');
  });

  it('follows a redirect and names the file from Content-Disposition', async () => {
    expect((await safeFetch(`${server.origin}/redirect`, { allowHosts: allow })).url).toBe(`${server.origin}/image.png`);
    expect((await safeFetch(`${server.origin}/named`, { allowHosts: allow })).filename).toBe('pony art.png');
  });

  it('refuses loopback without the explicit allowance, in every spelling', async () => {
    for (const host of ['127.0.0.1', 'localhost', '2130706433', '0x7f.1', '[::ffff:127.0.0.1]', '127.1', '[::1]']) {
      expect(await failure(safeFetch(`https://${host}:${server.hostPort.split(':')[1]}/image.png`))).toMatch(/forbidden_address|network/);
    }
    expect(await failure(safeFetch(`${server.origin}/image.png`))).toBe('forbidden_address');
  });

  it('refuses http, bad URLs and credentials', async () => {
    expect(await failure(safeFetch('http://example.com/a.png'))).toBe('bad_url');
    expect(await failure(safeFetch('not a url'))).toBe('bad_url');
    expect(await failure(safeFetch('https://user:pw@example.com/a.png'))).toBe('bad_url');
  });

  it('re-checks every redirect: private, loopback, metadata and http targets are refused', async () => {
    expect(await failure(safeFetch(`${server.origin}/to-private`, { allowHosts: allow }))).toBe('forbidden_address');
    expect(await failure(safeFetch(`${server.origin}/to-metadata`, { allowHosts: allow }))).toBe('forbidden_address');
    expect(await failure(safeFetch(`${server.origin}/to-loopback`, { allowHosts: allow }))).toBe('forbidden_address');
    expect(await failure(safeFetch(`${server.origin}/to-http`, { allowHosts: allow }))).toBe('bad_url');
  });

  it('limits redirects, size (while streaming), time and status', async () => {
    expect(await failure(safeFetch(`${server.origin}/loop`, { allowHosts: allow }))).toBe('too_many_redirects');
    expect(await failure(safeFetch(`${server.origin}/huge`, { allowHosts: allow, maxBytes: 1024 * 1024 }))).toBe('too_large');
    expect(await failure(safeFetch(`${server.origin}/slow`, { allowHosts: allow, totalTimeoutMs: 500 }))).toBe('timeout');
    expect(await failure(safeFetch(`${server.origin}/missing`, { allowHosts: allow }))).toBe('http_status');
  });

  it('gives up on an answer that drips in below the minimum rate, long before the time limit', async () => {
    const started = Date.now();
    const err = await safeFetch(`${server.origin}/drip`, { allowHosts: allow, rateWindowMs: 1_000, totalTimeoutMs: 60_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FetchError);
    expect(err).toMatchObject({ code: 'timeout', message: 'sent less than 16384 bytes per second' });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('classifies addresses', () => {
    for (const a of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPublicAddress(a)).toBe(true);
    for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '224.0.0.1', 'nonsense']) {
      expect(isPublicAddress(a)).toBe(false);
    }
  });

  it('judges an IPv4 address embedded in IPv6 (mapped, compatible, NAT64, 6to4) by the IPv4 address', () => {
    const embedded = (v4: string) => {
      const [a, b, c, d] = v4.split('.').map(Number) as [number, number, number, number];
      const hi = ((a << 8) | b).toString(16);
      const lo = ((c << 8) | d).toString(16);
      return [`::ffff:${v4}`, `::${v4}`, `::${hi}:${lo}`, `64:ff9b::${v4}`, `64:ff9b::${hi}:${lo}`, `2002:${hi}:${lo}::1`, `2002:${hi}:${lo}:1:2:3:4:5`];
    };
    for (const v4 of ['127.0.0.1', '169.254.169.254', '10.0.0.1', '192.168.1.1', '100.64.0.1', '0.0.0.0', '224.0.0.1']) {
      for (const a of embedded(v4)) expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['::7f00:1', '::a9fe:a9fe', '::127.0.0.1', '::', '::1', '64:ff9b::a9fe:a9fe', '2002:7f00:1::']) expect(isPublicAddress(a), a).toBe(false);
    for (const a of embedded('8.8.8.8')) expect(isPublicAddress(a), a).toBe(true);
    // The other NAT64 prefix and Teredo carry an address this check does not unpack: refused.
    for (const a of ['64:ff9b:1::808:808', '2001::808:808']) expect(isPublicAddress(a), a).toBe(false);
  });
});
