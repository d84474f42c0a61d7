/**
 * The picture board of the reverse-search benchmark: procedurally drawn pictures stored as image
 * rows with the intensities and fingerprints that processing computes (`computeSearchKeys`, one
 * decode of each file), in an embedded PostgreSQL of its own, indexed into an embedded engine by
 * the real indexer.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Indexer } from '../../indexer/index.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/client.js';
import * as s from '../../src/db/schema/index.js';
import { fingerprintRow } from '../../src/contexts/images/fingerprints.js';
import { sha512Hex } from '../../src/media/analyze.js';
import { computeSearchKeys } from '../../src/media/fingerprint.js';
import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { drawPicture, type Picture } from './pictures.js';

export interface PictureBoard {
  handle: DatabaseHandle;
  engine: EmbeddedEngine;
  /** Image id of each board picture, by seed. */
  idOf: Map<number, number>;
  pictures: Picture[];
  close(): Promise<void>;
}

export async function buildPictureBoard(seeds: number[], log: (m: string) => void): Promise<PictureBoard> {
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-bench-reverse-'));
  const handle = await openDatabase({ dataDir: dir, max: 4 });
  const pictures: Picture[] = [];
  const idOf = new Map<number, number>();
  const started = performance.now();
  for (const seed of seeds) {
    const picture = await drawPicture(seed);
    pictures.push(picture);
    const { intensities, fingerprint } = await computeSearchKeys(picture.png);
    const sha = sha512Hex(picture.png);
    const [row] = await handle.db
      .insert(s.images)
      .values({
        imageFormat: 'png',
        imageMimeType: 'image/png',
        imageWidth: picture.width,
        imageHeight: picture.height,
        imageAspectRatio: picture.width / picture.height,
        imageSize: picture.png.length,
        imageOrigSize: picture.png.length,
        imageSha512Hash: sha,
        imageOrigSha512Hash: sha,
        processed: true,
        thumbnailsGenerated: true,
      })
      .returning({ id: s.images.id });
    await handle.db.insert(s.imageIntensities).values({ imageId: row!.id, ...intensities });
    await handle.db.insert(s.imageFingerprints).values(fingerprintRow(row!.id, fingerprint));
    idOf.set(seed, row!.id);
    if (pictures.length % 250 === 0) log(`  drew and stored ${pictures.length}/${seeds.length} pictures (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  const engine = new EmbeddedEngine();
  const indexer = new Indexer({ db: handle.db, engine, deleteRows: 'immediate' });
  await indexer.ensureIndexes();
  await indexer.reindex(['images']);
  return {
    handle,
    engine,
    idOf,
    pictures,
    async close() {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
