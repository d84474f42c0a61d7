/**
 * How the S3 backend reads a store's "full" answers. S3Proxy, the real server of the other S3
 * suites, answers a write onto a full disk with a plain 500 InternalError (checked by hand: its
 * filesystem backend on a 1 MiB tmpfs), which says nothing about space, so the answers of stores
 * that do say so are replayed here by a loopback HTTP server, through the real AWS SDK: MinIO's
 * 507 XMinioStorageFull and a bucket quota's 403 QuotaExceeded become StorageFullError and mark
 * the storage full; a plain 500 is an unavailable store (503), as is one out of reach; a later
 * successful write clears the mark.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import type { AppEnv } from '../../src/http/env/context.js';
import { errorHandler } from '../../src/http/middleware/errors.js';
import { fileRoutes } from '../../src/http/routes/files.js';
import { freePort } from '../../src/lib/free-port.js';
import { StorageFullError, StorageUnavailableError } from '../../src/media/storage.js';
import { S3Storage, s3ClientFor } from '../../src/media/storage-s3.js';

let server: Server;
let endpoint: string;
let answer: { status: number; code: string } | null = null;
let storage: S3Storage;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (!answer) {
        res.writeHead(200, { ETag: '"d41d8cd98f00b204e9800998ecf8427e"' }).end();
        return;
      }
      res.writeHead(answer.status, { 'Content-Type': 'application/xml' });
      res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${answer.code}</Code><Message>refused</Message><RequestId>1</RequestId></Error>`);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  const settings = { kind: 's3' as const, bucket: 'media', prefix: '', endpoint, region: 'us-east-1', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true };
  storage = new S3Storage(s3ClientFor(settings), 'media', '');
});

afterAll(async () => {
  storage?.client.destroy();
  await new Promise((r) => server?.close(r));
});

describe('S3 answers for a full store', () => {
  it.each([
    { status: 507, code: 'XMinioStorageFull' },
    { status: 403, code: 'QuotaExceeded' },
  ])('$status $code is StorageFullError and marks the storage full until a write succeeds', async (full) => {
    answer = full;
    await expect(storage.put('a/b.png', Buffer.from('x'))).rejects.toBeInstanceOf(StorageFullError);
    expect(storage.health.full).toBe(true);
    answer = null;
    await storage.put('a/b.png', Buffer.from('x'));
    expect(storage.health.full).toBe(false);
  });

  it('a plain 500 is not a full store but an unavailable one', async () => {
    answer = { status: 500, code: 'InternalError' };
    const error = await storage.put('a/b.png', Buffer.from('x')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageUnavailableError);
    expect(storage.health.full).toBe(false);
  });
});

describe('S3 out of reach', () => {
  it('is StorageUnavailableError, and the file route answers 503 with the JSON error and Retry-After', async () => {
    const closed = await freePort();
    const settings = { kind: 's3' as const, bucket: 'media', prefix: '', endpoint: `http://127.0.0.1:${closed}`, region: 'us-east-1', accessKeyId: 'k', secretAccessKey: 's', forcePathStyle: true };
    const gone = new S3Storage(s3ClientFor(settings), 'media', '');
    try {
      await expect(gone.get('a/b.png')).rejects.toBeInstanceOf(StorageUnavailableError);
      const app = new Hono<AppEnv>();
      app.onError(errorHandler({ error: () => {} }));
      app.route('/', fileRoutes(gone));
      // an asset: an image's file would first ask the app whether the image is hidden
      const res = await app.request('/avatars/a/b.png');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await res.json()).toEqual({ error: expect.any(String) });
    } finally {
      gone.client.destroy();
    }
  });
});
