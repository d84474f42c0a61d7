/**
 * End to end with a real client: Debian's gallery-dl (philomena extractor) fetches an image's
 * JSON from our server and downloads its `view_url`, which the embedded file routes serve. The
 * downloaded bytes must be the stored file (gallery-dl's newer versions compare `sha512_hash`).
 *
 * Needs the `gallery-dl` command (`apt-get install gallery-dl`); without it the test is skipped.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import * as s from '../../src/db/schema/index.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { datePath } from '../../src/media/storage.js';
import { stubEngine } from '../http/harness.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

function galleryDlVersion(): string | null {
  try {
    return execFileSync('gallery-dl', ['--version'], { encoding: 'utf8', timeout: 20_000 }).trim();
  } catch {
    return null;
  }
}

const version = galleryDlVersion();
const missing = 'gallery-dl is not installed (Debian: apt-get install gallery-dl); skipping the end-to-end client test';
if (!version) console.warn(missing);

function run(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('gallery-dl', args, { timeout: 60_000, encoding: 'utf8' }, (err, stdout, stderr) =>
      err ? reject(Object.assign(err, { stdout, stderr })) : resolve({ stdout, stderr }),
    );
  });
}

describe.skipIf(!version)(`gallery-dl ${version ?? '(missing)'} against the read API`, () => {
  let testDb: TestDatabase;
  let server: ServerType;
  let url: string;
  let dataDir: string;
  let imageId: number;
  let png: Buffer;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-e2e-'));
    // The server must know its own address for absolute file URLs: listen first, then build the app.
    let fetchImpl: (req: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
    server = await new Promise((resolve) => {
      const srv = serve({ fetch: (req) => fetchImpl(req), port: 0, hostname: '127.0.0.1' }, () => resolve(srv));
    });
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = loadConfig({ BASE_URL: url, CDN_URL: url, DATA_DIR: dataDir, DEMO_DATA: 'false' });
    fetchImpl = createApp(composeApp({ config, db: testDb.db, engine: stubEngine })).fetch;

    png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 200, g: 120, b: 220 } } }).png().toBuffer();
    const sha512 = createHash('sha512').update(png).digest('hex');
    const [safe] = await testDb.db.insert(s.tags).values({ name: 'safe', slug: 'safe', nameInNamespace: 'safe', category: 'rating' }).returning();
    const [image] = await testDb.db
      .insert(s.images)
      .values({
        imageName: 'pony.png',
        imageWidth: 64,
        imageHeight: 48,
        imageSize: png.length,
        imageOrigSize: png.length,
        imageFormat: 'png',
        imageMimeType: 'image/png',
        imageAspectRatio: 64 / 48,
        imageSha512Hash: sha512,
        imageOrigSha512Hash: sha512,
        processed: true,
        thumbnailsGenerated: true,
      })
      .returning();
    imageId = image!.id;
    await testDb.db.insert(s.imageTaggings).values({ imageId, tagId: safe!.id, position: 0 });
    const dir = join(dataDir, 'images', datePath(image!.createdAt), String(imageId));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'full.png'), png);
    writeFileSync(join(dir, 'thumb_tiny.png'), png);
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server?.close(() => resolve()));
    await testDb?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('reads the image metadata', async () => {
    const { stdout } = await run(['--dump-json', `philomena:${url}/images/${imageId}`]);
    const messages = JSON.parse(stdout) as unknown[][];
    const urlMessage = messages.find((m) => m[0] === 3);
    if (!urlMessage) throw new Error(`gallery-dl printed no URL message: ${stdout}`);
    expect(urlMessage[1]).toBe(`${url}/img/view/${datePath(new Date((urlMessage[2] as { created_at: string }).created_at))}/${imageId}__safe.png`);
    const meta = urlMessage[2] as Record<string, unknown>;
    expect(meta.id).toBe(imageId);
    expect(meta.tags).toEqual(['safe']);
    expect(typeof meta.date).toBe('string');
    expect(meta.date).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
  });

  it('downloads the view_url bytes, matching sha512_hash', async () => {
    const dest = mkdtempSync(join(tmpdir(), 'tagwise-gdl-'));
    try {
      await run(['-D', dest, '--no-mtime', `philomena:${url}/images/${imageId}`]);
      const files = readdirSync(dest);
      expect(files).toEqual([`${imageId}__safe.png`]);
      const bytes = readFileSync(join(dest, files[0]!));
      expect(bytes.equals(png)).toBe(true);
      const api = (await (await fetch(`${url}/api/v1/json/images/${imageId}`)).json()) as { image: { sha512_hash: string } };
      expect(createHash('sha512').update(bytes).digest('hex')).toBe(api.image.sha512_hash);
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });
});

if (!version) {
  describe('gallery-dl end to end', () => {
    it.skip(missing, () => {});
  });
}
