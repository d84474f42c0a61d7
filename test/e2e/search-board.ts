/**
 * A running server for the end-to-end client tests: a real database, a fixture board with real
 * image files, the embedded engine filled by the indexer, the app listening on a local port, and
 * gallery-dl helpers.
 *
 * The board: system filters `Default` (id 1: hides `explicit`, spoilers `questionable`) and
 * `Everything` (id 2, the id gallery-dl sends when it has no key); 63 images tagged `bulk`
 * (60 `safe` and 3 `explicit`), each a distinct small PNG with its own sha512; a gallery of 7 of
 * them in a shuffled order; a user Alice with a key, 5 faves and her current filter unset (so
 * Default applies to her).
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import sharp from 'sharp';
import { Indexer } from '../../indexer/index.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import { createApp } from '../../src/http/app/app.js';
import { composeApp } from '../../src/http/app/compose.js';
import { datePath } from '../../src/media/storage.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { generateApiKey } from '../../src/contexts/users/api-keys.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';

// ---------------------------------------------------------------------------------------------
// gallery-dl
// ---------------------------------------------------------------------------------------------

export function galleryDlVersion(): string | null {
  try {
    return execFileSync('gallery-dl', ['--version'], { encoding: 'utf8', timeout: 20_000 }).trim();
  } catch {
    return null;
  }
}

export const GALLERY_DL_MISSING = 'gallery-dl is not installed (Debian: apt-get install gallery-dl); skipping the end-to-end client test';

/** Run gallery-dl without the machine's own configuration files. */
export function runGalleryDl(args: string[], timeoutMs = 120_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('gallery-dl', ['--config-ignore', ...args], { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(Object.assign(err, { stdout, stderr })) : resolve({ stdout, stderr }),
    );
  });
}

// ---------------------------------------------------------------------------------------------
// The board
// ---------------------------------------------------------------------------------------------

export interface BoardImage {
  id: number;
  tags: string[];
  score: number;
  createdAt: Date;
  firstSeenAt: Date;
  sha512: string;
  bytes: Buffer;
}

export interface SearchBoard {
  url: string;
  db: Database;
  images: BoardImage[];
  filters: { default: number; everything: number };
  gallery: { id: number; byPosition: number[] };
  alice: { id: number; key: string; faves: number[] };
  close(): Promise<void>;
}

const DAY = 86_400_000;

export async function startSearchBoard(options: { rateLimits?: boolean } = {}): Promise<SearchBoard> {
  const testDb: TestDatabase = await createTestDatabase();
  const { db } = testDb;
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-e2e-search-'));
  // The server must know its own address for absolute file URLs: listen first, then build the app.
  let fetchImpl: (req: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
  const server: ServerType = await new Promise((resolve) => {
    const srv = serve({ fetch: (req) => fetchImpl(req), port: 0, hostname: '127.0.0.1' }, () => resolve(srv));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const tag = async (name: string, category: (typeof s.tagCategories)[number] | null = null) =>
    (await db.insert(s.tags).values({ name, slug: name, nameInNamespace: name, category }).returning())[0]!;
  const safe = await tag('safe', 'rating');
  const explicit = await tag('explicit', 'rating');
  const questionable = await tag('questionable', 'rating');
  const bulk = await tag('bulk');

  await db.insert(s.filters).values([
    { id: 1, name: 'Default', system: true, hiddenTagIds: [explicit.id], spoileredTagIds: [questionable.id] },
    { id: 2, name: 'Everything', system: true },
  ]);
  await db.$client`select setval('filters_id_seq', 2)`;

  const [alice] = await db.insert(s.users).values({ name: 'Alice', slug: 'alice' }).returning();
  const { key, hash, prefix } = generateApiKey();
  await db.insert(s.apiKeys).values({ userId: alice!.id, keyHash: hash, prefix });

  const images: BoardImage[] = [];
  const base = Date.UTC(2024, 4, 1, 9, 0, 0);
  for (let i = 0; i < 63; i++) {
    const isExplicit = i % 21 === 20;
    const bytes = await sharp({
      create: { width: 32, height: 24, channels: 3, background: { r: (i * 37) % 256, g: (i * 91) % 256, b: (i * 53) % 256 } },
    })
      .png()
      .toBuffer();
    const sha512 = createHash('sha512').update(bytes).digest('hex');
    const createdAt = new Date(base + i * (DAY / 3) + i * 1000);
    // first seen in an order unrelated to ids, so that the default order is not the id order
    const firstSeenAt = new Date(base + ((i * 29) % 63) * 60_000);
    const score = (i * 17) % 23 - 5;
    const [row] = await db
      .insert(s.images)
      .values({
        imageName: `bulk-${i}.png`,
        imageWidth: 32,
        imageHeight: 24,
        imageSize: bytes.length,
        imageOrigSize: bytes.length,
        imageFormat: 'png',
        imageMimeType: 'image/png',
        imageAspectRatio: 32 / 24,
        imageSha512Hash: sha512,
        imageOrigSha512Hash: sha512,
        score,
        upvotesCount: Math.max(score, 0),
        downvotesCount: Math.max(-score, 0),
        processed: true,
        thumbnailsGenerated: true,
        createdAt,
        updatedAt: createdAt,
        firstSeenAt,
      })
      .returning();
    const id = row!.id;
    const rating = isExplicit ? explicit : safe;
    await db.insert(s.imageTaggings).values([
      { imageId: id, tagId: rating.id, position: 0 },
      { imageId: id, tagId: bulk.id, position: 1 },
    ]);
    const dir = join(dataDir, 'images', datePath(createdAt), String(id));
    mkdirSync(dir, { recursive: true });
    for (const name of ['full', 'large', 'medium', 'small', 'tall', 'thumb', 'thumb_small', 'thumb_tiny']) {
      writeFileSync(join(dir, `${name}.png`), bytes);
    }
    images.push({ id, tags: [rating.name, 'bulk'], score, createdAt, firstSeenAt, sha512, bytes });
  }

  const safeImages = images.filter((im) => im.tags.includes('safe'));
  const faves = [safeImages[3]!.id, safeImages[10]!.id, safeImages[11]!.id, safeImages[40]!.id, safeImages[59]!.id];
  await db.insert(s.imageFaves).values(faves.map((imageId) => ({ imageId, userId: alice!.id })));

  const byPosition = [safeImages[5]!, safeImages[2]!, safeImages[30]!, safeImages[7]!, safeImages[55]!, safeImages[1]!, safeImages[18]!].map((im) => im.id);
  const [gallery] = await db
    .insert(s.galleries)
    .values({ title: 'Ordered Ponies', description: 'in a particular order', thumbnailId: byPosition[0]!, creatorId: alice!.id, imageCount: byPosition.length })
    .returning();
  await db.insert(s.galleryInteractions).values(byPosition.map((imageId, position) => ({ galleryId: gallery!.id, imageId, position })));

  const engine = new EmbeddedEngine({});
  const indexer = new Indexer({ db, engine });
  await indexer.ensureIndexes();
  await indexer.reindex();
  await indexer.syncOnce();
  indexer.start();

  const config = loadConfig({
    BASE_URL: url,
    CDN_URL: url,
    DATA_DIR: dataDir,
    DEMO_DATA: 'false',
    RATE_LIMITS: options.rateLimits === false ? 'off' : 'on',
  });
  fetchImpl = createApp(composeApp({ config, db, engine })).fetch;

  return {
    url,
    db,
    images,
    filters: { default: 1, everything: 2 },
    gallery: { id: gallery!.id, byPosition },
    alice: { id: alice!.id, key, faves },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await indexer.stop();
      await engine.close();
      await testDb.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Ids in the default search order (first_seen_at desc, id desc). */
export function newestFirst(list: readonly BoardImage[]): number[] {
  return [...list].sort((a, b) => b.firstSeenAt.getTime() - a.firstSeenAt.getTime() || b.id - a.id).map((im) => im.id);
}
