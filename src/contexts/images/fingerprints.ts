/**
 * Stored perceptual fingerprints (`image_fingerprints`, one row per image; see
 * src/media/fingerprint.ts) and their backfill for images processed before fingerprints existed
 * or by an older algorithm.
 *
 * The backfill is resumable by construction: it picks the images whose fingerprint is missing or
 * of another version, in id order, and commits each batch in one transaction, so a run killed at
 * any point (even `kill -9`) leaves whole batches done and the next run continues with the rest.
 * Writing a row reindexes its image through the outbox trigger.
 */
import { and, asc, count, eq, gt, isNull, ne, or } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Transaction } from '../../db/executor.js';
import { imageFingerprints, images } from '../../db/schema/index.js';
import { MediaError } from '../../media/errors.js';
import { computeFingerprint, FINGERPRINT_VERSION, type Fingerprint } from '../../media/fingerprint.js';
import { formatInfo } from '../../media/formats.js';
import { pathFor, type MediaStorage } from '../../media/storage.js';

export function fingerprintRow(imageId: number, fingerprint: Fingerprint): typeof imageFingerprints.$inferInsert {
  return { imageId, phash: fingerprint.phash, chash: fingerprint.chash, version: FINGERPRINT_VERSION };
}

export async function saveFingerprint(db: Database | Transaction, imageId: number, fingerprint: Fingerprint): Promise<void> {
  const row = fingerprintRow(imageId, fingerprint);
  await db.insert(imageFingerprints).values(row).onConflictDoUpdate({ target: imageFingerprints.imageId, set: { phash: row.phash, chash: row.chash, version: row.version } });
}

export async function fingerprintOf(db: Database, imageId: number): Promise<Fingerprint | null> {
  const [row] = await db.select({ phash: imageFingerprints.phash, chash: imageFingerprints.chash }).from(imageFingerprints).where(eq(imageFingerprints.imageId, imageId));
  return row ?? null;
}

export interface BackfillProgress {
  /** Images handled in this run (fingerprinted or failed). */
  done: number;
  /** Images needing a fingerprint when the run started. */
  total: number;
  failed: number;
}

export interface BackfillOptions {
  batchSize?: number;
  onProgress?: (progress: BackfillProgress) => void;
  /** Called with each image that could not be fingerprinted (missing file, undecodable). */
  onFailure?: (imageId: number, reason: string) => void;
}

/** Images with a stored original whose fingerprint is missing or of another version. */
const needsFingerprint = and(
  eq(images.destroyedContent, false),
  or(isNull(imageFingerprints.imageId), ne(imageFingerprints.version, FINGERPRINT_VERSION)),
);

/** Fingerprint every image that needs it; see the module comment. */
export async function backfillFingerprints(deps: { db: Database; fileStore: MediaStorage }, options: BackfillOptions = {}): Promise<BackfillProgress> {
  const { db, fileStore } = deps;
  const batchSize = options.batchSize ?? 50;
  const [counted] = await db.select({ n: count() }).from(images).leftJoin(imageFingerprints, eq(imageFingerprints.imageId, images.id)).where(needsFingerprint);
  const progress: BackfillProgress = { done: 0, total: counted?.n ?? 0, failed: 0 };
  options.onProgress?.({ ...progress });
  // failures stay without a fingerprint: `after` moves past them so this run does not retry them
  let after = 0;
  for (;;) {
    const batch = await db
      .select({ id: images.id, createdAt: images.createdAt, storageKey: images.storageKey, format: images.imageFormat })
      .from(images)
      .leftJoin(imageFingerprints, eq(imageFingerprints.imageId, images.id))
      .where(and(needsFingerprint, gt(images.id, after)))
      .orderBy(asc(images.id))
      .limit(batchSize);
    if (batch.length === 0) break;
    const computed: { imageId: number; fingerprint: Fingerprint }[] = [];
    for (const image of batch) {
      after = image.id;
      const key = image.storageKey ?? pathFor(image.createdAt, image.id, 'full', formatInfo(image.format)?.ext ?? image.format);
      const bytes = await fileStore.get(key);
      const failed = (reason: string) => {
        progress.failed++;
        options.onFailure?.(image.id, reason);
      };
      if (bytes === null) {
        failed(`the original is missing (${key})`);
        continue;
      }
      try {
        computed.push({ imageId: image.id, fingerprint: await computeFingerprint(bytes) });
      } catch (error) {
        if (!(error instanceof MediaError)) throw error;
        failed(error.message);
      }
    }
    await db.transaction(async (tx) => {
      for (const c of computed) await saveFingerprint(tx, c.imageId, c.fingerprint);
    });
    progress.done += batch.length;
    options.onProgress?.({ ...progress });
  }
  return progress;
}
