/**
 * Dumps in object storage: with STORAGE_URL on a real S3-compatible server (S3Proxy), the nightly
 * dump is written into the bucket's `dumps/` area, `/dumps/` lists and serves it from there (with
 * ranges), `latest.json` follows the newest, and older dumps beyond DUMP_KEEP are removed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { DumpSchedule } from '../../src/dumps/schedule.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { openStorage } from '../../src/media/storage-open.js';
import type { S3Storage } from '../../src/media/storage-s3.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { insertImage, insertTag, insertUser, stubEngine } from '../http/harness.js';

let server: S3TestServer;
let t: TestDatabase;
let config: Config;
let dataDir: string;
let app: ReturnType<typeof createApp>;

const day = (d: string) => new Date(`${d}T03:00:00Z`);

beforeAll(async () => {
  [server, t] = await Promise.all([startS3Server(), createTestDatabase()]);
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-dump-s3-'));
  config = loadConfig({ DATA_DIR: dataDir, BASE_URL: 'https://booru.test', DEMO_DATA: 'false', DUMP_KEEP: '1', ...server.env('board') });
  const user = await insertUser(t.db, { name: 'Bucket User' });
  await insertImage(t.db, { values: { userId: user.id }, tags: [await insertTag(t.db, 'safe')] });
  app = createApp(composeApp({ config, db: t.db, engine: stubEngine, logger: { error: () => {} } }));
});

afterAll(async () => {
  (openStorage(config.storage) as S3Storage | undefined)?.client.destroy();
  await t?.drop();
  await server?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function keys(): Promise<string[]> {
  const out: string[] = [];
  for await (const o of openStorage(config.storage).area('dumps').list()) out.push(o.key);
  return out.sort();
}

describe('dumps in S3', () => {
  it('are written to the bucket, served from it, and pruned there', async () => {
    expect(await new DumpSchedule({ db: t.db, config, now: () => day('2025-03-01') }).runNow()).toMatchObject({ status: 'written' });
    expect(await keys()).toContain('2025-03-01/manifest.json');
    expect(await keys()).toContain('latest.json');

    const index = (await (await app.request('/dumps/')).json()) as { latest: string; dumps: Array<{ name: string; files: Array<{ name: string; bytes: number; sha256: string | null }> }> };
    expect(index.latest).toBe('2025-03-01');
    const images = index.dumps[0]!.files.find((f) => f.name === 'images.jsonl.gz')!;
    const whole = Buffer.from(await (await app.request('/dumps/2025-03-01/images.jsonl.gz')).arrayBuffer());
    expect(whole.length).toBe(images.bytes);
    expect(createHash('sha256').update(whole).digest('hex')).toBe(images.sha256);
    expect(gunzipSync(whole).toString()).toContain('"id":');
    const part = await app.request('/dumps/2025-03-01/images.jsonl.gz', { headers: { Range: 'bytes=0-9' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(0, 10))).toBe(true);
    expect(((await (await app.request('/dumps/2025-03-01/manifest.json')).json()) as { name: string }).name).toBe('2025-03-01');

    expect(await new DumpSchedule({ db: t.db, config, now: () => day('2025-03-02') }).runNow()).toMatchObject({ status: 'written' });
    const after = await keys();
    expect(after.some((k) => k.startsWith('2025-03-01/'))).toBe(false);
    expect(after).toContain('2025-03-02/manifest.json');
    expect(((await (await app.request('/dumps/latest.json')).json()) as { name: string }).name).toBe('2025-03-02');
  });
});
