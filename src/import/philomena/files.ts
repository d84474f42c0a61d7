/**
 * `--files DIR`: originals from a Philomena image store (`DIR/Y/M/D/<id>/full.<format>`, the
 * layout Philomena's uploader writes) are hard-linked into the board's image store (copied when
 * the two are on different file systems, or into object storage), and each image is queued for the normal processing
 * job, which makes every representation in the background and then marks the image processed.
 * Images already holding a stored file are left alone, so a rerun continues where one stopped.
 * Hidden images are skipped: Philomena moves their files under a secret directory name.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { sqlClientOf, type Database } from '../../db/client.js';
import { images } from '../../db/schema/index.js';
import { PROCESS_IMAGE_JOB } from '../../contexts/images/submit.js';
import { enqueueJob } from '../../jobs/queue.js';
import { datePath, pathFor, type MediaStorage } from '../../media/storage.js';
import type { Reporter } from './report.js';

export interface FilesSummary {
  linked: number;
  copied: number;
  /** Images whose original is not in the directory. */
  missing: number;
}

export async function bringFiles(db: Database, dir: string, store: MediaStorage, reporter: Reporter): Promise<FilesSummary> {
  const summary: FilesSummary = { linked: 0, copied: 0, missing: 0 };
  const sql = sqlClientOf(db);
  const [{ total }] = (await sql`select count(*)::int as total from images where storage_key is null and not hidden_from_users`) as unknown as [{ total: number }];
  let done = 0;
  const cursor = sql<Array<{ id: number; ms: number; image_format: string }>>`
    select id, (extract(epoch from created_at) * 1000)::float8 as ms, image_format
    from images where storage_key is null and not hidden_from_users order by id`.cursor(500);
  for await (const batch of cursor) {
    const placed: Array<{ id: number; key: string }> = [];
    for (const image of batch) {
      const createdAt = new Date(image.ms);
      const relative = `${datePath(createdAt)}/${image.id}/full.${image.image_format}`;
      const from = join(dir, relative);
      if (!(await stat(from).catch(() => null))?.isFile()) {
        summary.missing++;
        reporter.skipped('files', `image ${image.id}`, `no ${relative} under ${dir}`);
      } else {
        const key = pathFor(createdAt, image.id, 'full', image.image_format);
        summary[await store.putFile(key, from)]++;
        placed.push({ id: image.id, key });
      }
      reporter.progress('files', ++done, total);
    }
    if (placed.length === 0) continue;
    // Thumbnails are not generated here until the job has made them.
    await db.transaction(async (tx) => {
      for (const p of placed) {
        await tx.update(images).set({ storageKey: p.key, thumbnailsGenerated: false, processed: false }).where(eq(images.id, p.id));
        await enqueueJob(tx, PROCESS_IMAGE_JOB, { imageId: p.id });
      }
    });
  }
  reporter.progress('files', done, total, true);
  return summary;
}
