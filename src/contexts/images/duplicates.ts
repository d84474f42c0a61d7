/**
 * Near-duplicate reports. When an image is processed, the visible images submitted before it
 * whose fingerprints lie within `DUPLICATE_DISTANCE` bits of its own are recorded as open reports
 * (the submission itself is accepted, as the reference accepts it; only byte-identical files are
 * refused, by submit.ts). A mirror image or quarter turn of an older image is reported too: its
 * turned hashes (src/media/fingerprint.ts `QueryHashes`) within `TURNED_DUPLICATE_DISTANCE` bits
 * of the older image's `phash` or `chash`. Candidates are found in PostgreSQL by multi-index
 * hashing: the indexed 16-bit chunks of both hashes (migration 0004) within ⌊d/4⌋ bits of the new
 * image's, then the whole hashes compared here. PostgreSQL rather than the search engine, because the image
 * submitted a second earlier is already in the table but not necessarily in the index.
 *
 * Merging a report's image into another hides it with `duplicate_of` set, which the read API
 * renders for merged images.
 */
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Transaction } from '../../db/executor.js';
import { duplicateReports, imageFingerprints, images } from '../../db/schema/index.js';
import { fingerprintDistance, hammingDistance, type Fingerprint, type QueryHashes } from '../../media/fingerprint.js';
import { CHUNKS, chunkValuesWithin } from '../../search/hash-chunks.js';
import { AdminError } from '../errors.js';

/** Largest distance (of 64 bits, the smaller over both hashes) reported as a near-duplicate. */
export const DUPLICATE_DISTANCE = 10;
/** Largest distance of a mirror image's or quarter turn's hash (reverse-search.ts `turnedThreshold` at the default). */
export const TURNED_DUPLICATE_DISTANCE = 5;
/** Reports recorded per image at most (the closest ones). */
const MAX_REPORTS = 5;

/** Record reports for the image against older visible images near its fingerprint. */
export async function recordNearDuplicates(db: Database | Transaction, imageId: number, fingerprint: Fingerprint, query: QueryHashes): Promise<number> {
  const chunkMatch = (column: 'phash' | 'chash', hash: string, distance = DUPLICATE_DISTANCE) =>
    chunkValuesWithin(hash, Math.floor(distance / CHUNKS)).map((values, j) => sql`substr(${sql.identifier(column)}, ${4 * j + 1}, 4) in ${values}`);
  const wholeTurned = [...new Set(query.whole.slice(1))].filter((h) => h !== fingerprint.phash);
  const centreTurned = [...new Set(query.centre.slice(1))].filter((h) => h !== fingerprint.chash);
  const turnedMatches = [
    ...wholeTurned.flatMap((h) => chunkMatch('phash', h, TURNED_DUPLICATE_DISTANCE)),
    ...centreTurned.flatMap((h) => chunkMatch('chash', h, TURNED_DUPLICATE_DISTANCE)),
  ];
  /** The closer of the plain distance and, within its own bound, the turned one. */
  const distanceTo = (c: { phash: string; chash: string }) => {
    const turned = Math.min(65, ...wholeTurned.map((h) => hammingDistance(h, c.phash)), ...centreTurned.map((h) => hammingDistance(h, c.chash)));
    const plain = fingerprintDistance(fingerprint, c);
    return turned <= TURNED_DUPLICATE_DISTANCE ? Math.min(plain, turned) : plain;
  };
  const candidates = await db
    .select({ id: imageFingerprints.imageId, phash: imageFingerprints.phash, chash: imageFingerprints.chash })
    .from(imageFingerprints)
    .innerJoin(images, eq(images.id, imageFingerprints.imageId))
    .where(
      and(
        sql`${imageFingerprints.imageId} < ${imageId}`,
        eq(images.hiddenFromUsers, false),
        or(...chunkMatch('phash', fingerprint.phash), ...chunkMatch('chash', fingerprint.chash), ...turnedMatches),
      ),
    );
  const near = candidates
    .map((c) => ({ id: c.id, distance: distanceTo(c) }))
    .filter((c) => c.distance <= DUPLICATE_DISTANCE)
    .sort((a, b) => a.distance - b.distance || a.id - b.id)
    .slice(0, MAX_REPORTS);
  if (near.length === 0) return 0;
  await db
    .insert(duplicateReports)
    .values(near.map((c) => ({ imageId, duplicateOfImageId: c.id, distance: c.distance })))
    .onConflictDoNothing();
  return near.length;
}

export interface DuplicateReportListing {
  id: number;
  imageId: number;
  duplicateOfImageId: number;
  distance: number;
  createdAt: Date;
}

export async function listOpenDuplicateReports(db: Database): Promise<DuplicateReportListing[]> {
  return db
    .select({ id: duplicateReports.id, imageId: duplicateReports.imageId, duplicateOfImageId: duplicateReports.duplicateOfImageId, distance: duplicateReports.distance, createdAt: duplicateReports.createdAt })
    .from(duplicateReports)
    .where(eq(duplicateReports.state, 'open'))
    .orderBy(asc(duplicateReports.distance), asc(duplicateReports.id));
}

/**
 * Merge `sourceId` into `targetId`: the source is hidden with `duplicate_id` = target, and the
 * open reports between the two are closed as merged. Refused when either image is missing, they
 * are the same, or the target is itself hidden (merged or deleted).
 */
export async function mergeDuplicate(db: Database, sourceId: number, targetId: number): Promise<void> {
  if (sourceId === targetId) throw new AdminError('an image cannot be merged into itself');
  await db.transaction(async (tx) => {
    const rows = await tx.select({ id: images.id, hidden: images.hiddenFromUsers }).from(images).where(inArray(images.id, [sourceId, targetId])).for('update');
    const source = rows.find((r) => r.id === sourceId);
    const target = rows.find((r) => r.id === targetId);
    if (!source) throw new AdminError(`no image ${sourceId}`);
    if (!target) throw new AdminError(`no image ${targetId}`);
    if (target.hidden) throw new AdminError(`image ${targetId} is hidden: merge into a visible image`);
    if (source.hidden) throw new AdminError(`image ${sourceId} is already hidden`);
    await tx.update(images).set({ hiddenFromUsers: true, duplicateId: targetId, updatedAt: sql`now()` }).where(eq(images.id, sourceId));
    await tx
      .update(duplicateReports)
      .set({ state: 'merged' })
      .where(
        and(
          eq(duplicateReports.state, 'open'),
          or(
            and(eq(duplicateReports.imageId, sourceId), eq(duplicateReports.duplicateOfImageId, targetId)),
            and(eq(duplicateReports.imageId, targetId), eq(duplicateReports.duplicateOfImageId, sourceId)),
          ),
        ),
      );
  });
}
