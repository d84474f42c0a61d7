/**
 * Entity tags keep their values: the tag of a body or of a route's short source is the first 32
 * characters of the base64url SHA-256 of its bytes, whether it was hashed now or remembered from
 * an earlier answer. The oracle hashes with `createHash`, which the app no longer calls.
 */
import { createHash } from 'node:crypto';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { AppEnv } from '../../src/http/env/context.js';
import { bodyEtag, jsonText } from '../../src/http/middleware/cache.js';

const expected = (bytes: string | Uint8Array) => `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 32)}"`;

function appAnswering(body: string, source: string | Uint8Array): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get('/', (c) => jsonText(c, body, source));
  return app;
}

describe('entity tags', () => {
  it('are the SHA-256 of the body bytes, for text, bytes and buffers', () => {
    for (const body of ['{"a":1}', 'ünïcödé ✓', '']) {
      expect(bodyEtag(body)).toBe(expected(body));
      const bytes = new TextEncoder().encode(body);
      expect(bodyEtag(bytes)).toBe(expected(bytes));
      expect(bodyEtag(bytes.buffer)).toBe(expected(bytes));
    }
  });

  it('of a short source are the same on every answer, first or remembered', async () => {
    const source = 'image abc0 []';
    const app = appAnswering('{"image":{}}', source);
    const tags = [];
    for (let i = 0; i < 3; i++) tags.push((await app.request('/')).headers.get('etag'));
    expect(tags).toEqual([expected(source), expected(source), expected(source)]);
  });

  it('of a long source or a byte source are its hash', async () => {
    const long = `images ${'x'.repeat(1000)}`;
    expect((await appAnswering('{}', long).request('/')).headers.get('etag')).toBe(expected(long));
    const bytes = new TextEncoder().encode('{"tags":[]}');
    expect((await appAnswering('{"tags":[]}', bytes).request('/')).headers.get('etag')).toBe(expected(bytes));
  });

  it('tell different short sources apart after many were remembered', async () => {
    for (let i = 0; i < 20_000; i++) {
      const source = `image d${i} []`;
      if (i % 997 === 0 || i > 19_990) expect((await appAnswering('{}', source).request('/')).headers.get('etag')).toBe(expected(source));
      else await appAnswering('{}', source).request('/');
    }
    expect((await appAnswering('{}', 'image d0 []').request('/')).headers.get('etag')).toBe(expected('image d0 []'));
  });
});
