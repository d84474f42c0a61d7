/**
 * `npm run admin -- fingerprints backfill` on a board whose images have no fingerprints: killed
 * with SIGKILL part-way, it leaves whole batches written; run again, it finishes the rest without
 * redoing them, and every fingerprint is the one the file gives; a row of an older version is
 * recomputed, region hashes included.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { imageFingerprints, images } from '../../src/db/schema/index.js';
import { computeFingerprint, FINGERPRINT_VERSION } from '../../src/media/fingerprint.js';
import { DirectoryStorage } from '../../src/media/storage-directory.js';
import { createTestDatabase, type TestDatabase } from '../support/db.js';
import { programArgs, ROOT } from '../support/programs.js';
import { pathFor, type MediaStorage } from '../../src/media/storage.js';

const COUNT = 60;
const BATCH = 3;

let tdb: TestDatabase;
let dataDir: string;
let store: MediaStorage;
const files = new Map<number, Buffer>();

function cliEnv(): NodeJS.ProcessEnv {
  const { BASE_URL: _b, CDN_URL: _c, ...rest } = process.env;
  return { ...rest, DATABASE_URL: tdb.url, DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
}

function backfill() {
  return spawn(process.execPath, [...programArgs('src/cli/admin.ts'), 'fingerprints', 'backfill', '--batch', String(BATCH)], { cwd: ROOT, env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
}

const fingerprinted = async () => (await tdb.db.select({ id: imageFingerprints.imageId }).from(imageFingerprints)).length;

beforeAll(async () => {
  tdb = await createTestDatabase();
  dataDir = mkdtempSync(join(tmpdir(), 'tagwise-backfill-'));
  store = new DirectoryStorage(join(dataDir, 'images'));
  for (let k = 0; k < COUNT; k++) {
    // large enough that each decode takes a while, different for each image
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1600" height="1200"><rect width="1600" height="1200" fill="rgb(${(k * 37) % 256},${(k * 91) % 256},${(k * 53) % 256})"/><circle cx="${200 + k * 20}" cy="600" r="${100 + k * 5}" fill="#fff"/></svg>`;
    const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 1 }).toBuffer();
    const createdAt = new Date('2025-01-02T03:04:05Z');
    const [row] = await tdb.db.insert(images).values({ imageFormat: 'png', imageMimeType: 'image/png', imageWidth: 1600, imageHeight: 1200, createdAt, processed: true }).returning({ id: images.id });
    const key = pathFor(createdAt, row!.id, 'full', 'png');
    await store.put(key, png);
    await tdb.db.update(images).set({ storageKey: key }).where(eq(images.id, row!.id));
    files.set(row!.id, png);
  }
}, 120_000);

afterAll(async () => {
  await tdb?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('fingerprints backfill', () => {
  it('resumes after being killed, redoing nothing', async () => {
    const first = backfill();
    // kill it once some batches are in, well before the end
    for (;;) {
      await new Promise((r) => setTimeout(r, 20));
      const n = await fingerprinted();
      if (n >= BATCH) break;
      if (first.exitCode !== null) throw new Error('the backfill ended before it could be killed');
    }
    first.kill('SIGKILL');
    await new Promise((r) => first.once('close', r));
    const afterKill = await fingerprinted();
    expect(afterKill).toBeGreaterThan(0);
    expect(afterKill).toBeLessThan(COUNT);
    expect(afterKill % BATCH).toBe(0);

    const second = backfill();
    let stdout = '';
    let stderr = '';
    second.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    second.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => second.once('close', r));
    expect(code, stderr).toBe(0);
    expect(stdout).toContain(`fingerprinted ${COUNT - afterKill} images, 0 failed`);
    // the progress bar counts what this run had to do
    expect(stderr).toContain(`(${COUNT - afterKill}/${COUNT - afterKill})`);

    const rows = await tdb.db.select().from(imageFingerprints);
    expect(rows).toHaveLength(COUNT);
    for (const row of rows.filter((_, k) => k % 10 === 0)) {
      const expected = await computeFingerprint(files.get(row.imageId)!);
      expect({ phash: row.phash, chash: row.chash, rhashes: row.rhashes }).toEqual(expected);
    }

    const third = backfill();
    let out3 = '';
    third.stdout.on('data', (d: Buffer) => (out3 += d.toString()));
    expect(await new Promise((r) => third.once('close', r))).toBe(0);
    expect(out3).toContain('fingerprinted 0 images, 0 failed');
  }, 180_000);

  it('recomputes the fingerprints of an older version, region hashes included', async () => {
    const [row] = await tdb.db.select().from(imageFingerprints).limit(1);
    await tdb.db.update(imageFingerprints).set({ version: 1, rhashes: [] }).where(eq(imageFingerprints.imageId, row!.imageId));
    const run = backfill();
    let stdout = '';
    run.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    expect(await new Promise((r) => run.once('close', r))).toBe(0);
    expect(stdout).toContain('fingerprinted 1 image, 0 failed');
    const [after] = await tdb.db.select().from(imageFingerprints).where(eq(imageFingerprints.imageId, row!.imageId));
    expect(after!.version).toBe(FINGERPRINT_VERSION);
    expect(after!.rhashes).toEqual((await computeFingerprint(files.get(row!.imageId)!)).rhashes);
    expect(after!.rhashes).toHaveLength(5);
  }, 60_000);
});
