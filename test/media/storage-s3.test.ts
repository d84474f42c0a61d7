/**
 * The S3 backend against a real S3-compatible server (S3Proxy with its filesystem backend, see
 * test/support/s3-server.ts): the storage contract, the prefix, and a missing bucket.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage, s3ClientFor } from '../../src/media/storage-s3.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { storageContract } from './storage-contract.js';

let server: S3TestServer;
let run = 0;
const clients: S3Storage[] = [];

beforeAll(async () => {
  server = await startS3Server();
});

afterAll(async () => {
  for (const c of clients) c.client.destroy();
  await server?.stop();
});

/** A fresh prefix per test, so tests do not see each other's objects. */
function fresh(): S3Storage {
  const settings = server.settings(`run-${++run}`);
  const storage = new S3Storage(s3ClientFor(settings), settings.bucket, settings.prefix);
  clients.push(storage);
  return storage;
}

storageContract('S3', fresh);

describe('S3Storage', () => {
  it('keeps objects under its prefix in the bucket (files on the server disk)', async () => {
    const store = fresh();
    await store.area('images').put('2024/2/1/1/full.png', Buffer.from('png'));
    expect(store.area('images').location).toBe(`s3://${server.bucket}/run-${run}/images/`);
    expect(existsSync(join(server.dataDir, server.bucket, `run-${run}`, 'images/2024/2/1/1/full.png'))).toBe(true);
  });

  it('a missing bucket is an error, not a missing file', async () => {
    const settings = { ...server.settings('x'), bucket: 'no-such-bucket' };
    const store = new S3Storage(s3ClientFor(settings), settings.bucket, settings.prefix);
    clients.push(store);
    await expect(store.get('a/b.png')).rejects.toThrow();
    await expect(store.put('a/b.png', Buffer.from('x'))).rejects.toThrow();
  });
});
