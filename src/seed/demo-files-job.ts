/**
 * The demo board's image files made after its rows (`DemoOptions.imageFilesLater`, the first
 * start's way): one durable `demo-image-files` job per image, newest first, generates the picture
 * from the plan's seed, processes and stores it like the seeder does, then writes the file's facts,
 * intensities and fingerprint into the image row with `processed` and `thumbnails_generated` (the
 * outbox trigger reindexes the image). Until then the image is listed like a fresh upload:
 * `thumbnails_generated: false`. A job cut short runs again at the next start; one that finds its
 * image gone or done already does nothing.
 */
import { eq, sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { imageIntensities, images } from '../db/schema/index.js';
import { saveFingerprint } from '../contexts/images/fingerprints.js';
import { enqueueJobs, type Job, type JobHandler } from '../jobs/index.js';
import type { DemoKind } from '../media/demo-images.js';
import type { MediaStorage } from '../media/storage.js';
import { imageColumnsOf, makeImageFiles, type ImageFileSpec } from './files.js';

export const DEMO_IMAGE_FILES_JOB = 'demo-image-files';

const KINDS: readonly DemoKind[] = ['png', 'jpeg', 'gif', 'svg'];

interface Payload {
  id: number;
  createdAt: string;
  kind: DemoKind;
  seed: number;
  maxSide?: number;
}

/** Queue the files of these images (in the transaction that writes their rows), newest first. */
export async function enqueueDemoImageFiles(tx: Parameters<typeof enqueueJobs>[0], specs: readonly ImageFileSpec[], maxSide?: number): Promise<void> {
  const newestFirst = [...specs].sort((a, b) => b.id - a.id);
  const payloads: Payload[] = newestFirst.map((s) => ({ id: s.id, createdAt: s.createdAt.toISOString(), kind: s.kind, seed: s.seed, ...(maxSide ? { maxSide } : {}) }));
  await enqueueJobs(tx, DEMO_IMAGE_FILES_JOB, payloads as unknown as Record<string, unknown>[]);
}

function payloadOf(job: Job): Payload {
  const { id, createdAt, kind, seed, maxSide } = job.payload;
  const valid =
    Number.isInteger(id) &&
    typeof createdAt === 'string' &&
    !Number.isNaN(Date.parse(createdAt)) &&
    KINDS.includes(kind as DemoKind) &&
    Number.isInteger(seed) &&
    (maxSide === undefined || Number.isInteger(maxSide));
  if (!valid) throw new Error(`bad ${DEMO_IMAGE_FILES_JOB} payload: ${JSON.stringify(job.payload)}`);
  return job.payload as unknown as Payload;
}

export type DemoFilesOutcome = 'made' | 'already-made' | 'missing';

/** Make one demo image's files and write their facts into its row. */
export async function makeDemoImageFiles(db: Database, store: MediaStorage, payload: Payload): Promise<DemoFilesOutcome> {
  const [image] = await db.select({ name: images.imageName, done: images.thumbnailsGenerated }).from(images).where(eq(images.id, payload.id)).limit(1);
  if (!image) return 'missing';
  if (image.done) return 'already-made';
  const spec: ImageFileSpec = { id: payload.id, createdAt: new Date(payload.createdAt), kind: payload.kind, seed: payload.seed };
  const facts = await makeImageFiles(store, spec, { maxSide: payload.maxSide });
  await db.transaction(async (tx) => {
    await tx
      .insert(imageIntensities)
      .values({ imageId: spec.id, ...facts.intensities })
      .onConflictDoUpdate({ target: imageIntensities.imageId, set: { ...facts.intensities } });
    await saveFingerprint(tx, spec.id, facts.fingerprint);
    await tx
      .update(images)
      .set({ ...imageColumnsOf(facts, image.name), processed: true, thumbnailsGenerated: true, updatedAt: sql`now()` })
      .where(eq(images.id, spec.id));
  });
  return 'made';
}

/** The log tells how far the files are every this many images. */
const PROGRESS_EVERY = 50;

/** Demo file jobs queued (other than the one in hand) and in all. */
async function demoFilesProgress(db: Database, current: number): Promise<{ left: number; total: number }> {
  const [row] = await db.execute<{ left: number; total: number }>(sql`
    select count(*) filter (where state in ('queued', 'running') and id <> ${current})::int as left, count(*)::int as total
    from jobs where kind = ${DEMO_IMAGE_FILES_JOB}`);
  return { left: Number(row?.left ?? 0), total: Number(row?.total ?? 0) };
}

/** The handler of the demo's file jobs, for the service's `JobWorker`; `images` is the image store. */
export function createDemoFilesJobHandlers(deps: { db: Database; images: MediaStorage; log?: (msg: string, detail?: Record<string, unknown>) => void }): Record<string, JobHandler> {
  return {
    [DEMO_IMAGE_FILES_JOB]: async (job: Job) => {
      const outcome = await makeDemoImageFiles(deps.db, deps.images, payloadOf(job));
      if (outcome !== 'made' || !deps.log) return;
      const { left, total } = await demoFilesProgress(deps.db, job.id);
      if (left === 0 || (total - left) % PROGRESS_EVERY === 0) {
        deps.log(left === 0 ? 'demo board: every image has its files' : 'demo board: making image files', { done: total - left, total });
      }
    },
  };
}
