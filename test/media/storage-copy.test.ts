/**
 * `npm run storage -- copy --to s3://…` as a program, from a DATA_DIR into a real S3-compatible
 * server (S3Proxy): every media area is copied, nothing else of DATA_DIR is, a second run copies
 * nothing, and a changed file is copied again.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Storage, s3ClientFor } from '../../src/media/storage-s3.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { runTool } from '../support/run-tool.js';

let server: S3TestServer;
let dataDir: string;
let bucket: S3Storage;

const FILES: Record<string, string> = {
  'images/2024/2/1/1/full.png': 'original',
  'images/2024/2/1/1/thumb.png': 'thumb',
  'avatars/a/b.png': 'avatar',
  'badge-img/x.svg': '<svg/>',
  'tag-img/t.png': 'tag',
  'dumps/2026-11-28/board.json': '{}',
};

beforeAll(async () => {
  server = await startS3Server();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-copy-'));
  for (const [path, text] of Object.entries({ ...FILES, 'postgres/PG_VERSION': '18', 'images/.tmp-0011': 'half' })) {
    mkdirSync(dirname(join(dataDir, path)), { recursive: true });
    writeFileSync(join(dataDir, path), text);
  }
  const settings = server.settings('');
  bucket = new S3Storage(s3ClientFor(settings), settings.bucket, '');
});

afterAll(async () => {
  bucket?.client.destroy();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function keysIn(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  for await (const o of bucket.list(prefix)) keys.push(o.key);
  return keys.sort();
}

describe('npm run storage -- copy', () => {
  it('copies every media area of DATA_DIR into the bucket, idempotently', async () => {
    // The S3 settings of the destination, and no STORAGE_URL: the source is DATA_DIR.
    const withoutStorage: Record<string, string> = { DATA_DIR: dataDir, ...server.env('moved') };
    delete withoutStorage.STORAGE_URL;
    const first = await runTool('src/cli/storage.ts', ['copy', '--to', `s3://${server.bucket}/moved`], withoutStorage);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^6 files copied .*, 0 already there$/m);
    expect(await keysIn('moved')).toEqual(Object.keys(FILES).map((k) => `moved/${k}`).sort());
    for (const [path, text] of Object.entries(FILES)) expect((await bucket.get(`moved/${path}`))?.toString()).toBe(text);

    const again = await runTool('src/cli/storage.ts', ['copy', '--to', `s3://${server.bucket}/moved`], withoutStorage);
    expect(again.stdout).toMatch(/^0 files copied .*, 6 already there$/m);

    writeFileSync(join(dataDir, 'images/2024/2/1/1/thumb.png'), 'a new thumb');
    const third = await runTool('src/cli/storage.ts', ['copy', '--to', `s3://${server.bucket}/moved`], withoutStorage);
    expect(third.stdout).toMatch(/^1 files copied .*, 5 already there$/m);
    expect((await bucket.get('moved/images/2024/2/1/1/thumb.png'))?.toString()).toBe('a new thumb');
  });

  it('refuses a bad destination with a usage error', async () => {
    const bad = await runTool('src/cli/storage.ts', ['copy', '--to', 's3://Bad_Bucket'], { DATA_DIR: dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/bucket/);
    expect((await runTool('src/cli/storage.ts', ['copy'], { DATA_DIR: dataDir })).code).toBe(2);
  });
});
