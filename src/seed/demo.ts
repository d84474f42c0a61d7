/**
 * The demo board: what an empty server fills itself with on first start, so that every endpoint
 * has something believable to show. Deterministic: the same seed gives the same rows and files.
 *
 * The board is planned in memory first (pure, from the seed), then the image files are generated
 * and processed two at a time, then every row is written in one transaction with explicit ids,
 * and the id sequences are moved past them. Counters (scores, fave and comment counts, tag image
 * counts, user and forum statistics, gallery sizes, filter user counts) are computed from the
 * planned rows, so they agree with the rows they count.
 */
import sharp from 'sharp';
import type { Database } from '../db/client.js';
import { generateDemoImage } from '../media/demo-images.js';
import type { MediaStorage } from '../media/storage.js';
import { fingerprintRow } from '../contexts/images/fingerprints.js';
import { avatarSvg } from '../contexts/users/avatar.js';
import {
  fileStoresOf,
  insertChunked,
  isBoardEmpty,
  mapLimit,
  resetSequences,
  skipOutbox,
  type SeedFileStores,
} from './common.js';
import { DEMO_TABLES, type DemoPlan, type DemoRow, type DemoTables } from './demo-plan/board.js';
import { planDemoBoard } from './demo-plan/plan.js';
import { enqueueDemoImageFiles } from './demo-files-job.js';
import { imageColumnsOf, makeImageFiles } from './files.js';
import { Random, mixSeed } from './random.js';

export { SYSTEM_FILTERS } from './demo-plan/accounts.js';
export type { DemoPlan } from './demo-plan/board.js';
export { planDemoBoard } from './demo-plan/plan.js';
export { RATING_DESCRIPTIONS } from './demo-plan/tags.js';
export { isBoardEmpty };

export interface DemoProgress {
  phase: 'files' | 'rows' | 'done';
  done: number;
  total: number;
}

export interface DemoOptions {
  /** Seed of everything random (default 42). */
  seed?: number;
  /** Number of images (default 1000). */
  images?: number;
  /** Write real files (default true); needs `storage`. */
  withFiles?: boolean;
  /** Where the files go: images in its `images` area, avatars, badge and tag images in theirs. */
  storage?: MediaStorage;
  /** Images processed at once (default 2). */
  concurrency?: number;
  /** Longest side of the generated stills (default 800); see `ImageFileOptions.maxSide`. */
  maxImageSide?: number;
  /**
   * With `withFiles`: make the image files after the rows, in one `demo-image-files` job per image
   * (`demo-files-job.ts`, run by the service's job worker), instead of before them. The rows land
   * in seconds; each image shows `thumbnails_generated: false` until its job has made its files.
   * Avatars, badge and tag pictures are made at once either way (they take a moment).
   */
  imageFilesLater?: boolean;
  /**
   * Skip the search outbox (default false). Only for callers that rebuild every index afterwards;
   * by default every row is queued for indexing like any other write.
   */
  skipOutbox?: boolean;
  /** The board's "now": the newest content is just before it (default 2025-06-01, for determinism). */
  now?: Date;
  onProgress?: (progress: DemoProgress) => void;
}

export interface DemoSummary {
  users: number;
  tags: number;
  images: number;
  taggings: number;
  comments: number;
  topics: number;
  posts: number;
  galleries: number;
  filters: number;
  files: number;
  ms: number;
}

/** Intensities for boards without files: plausible corner brightness values. */
function syntheticIntensities(seed: number, id: number): DemoRow<'imageIntensities'> {
  const r = new Random(mixSeed(seed, 0x2000_0000 + id));
  const base = r.float() * 200 + 20;
  const v = () => Math.max(0, Math.min(255, base + (r.float() - 0.5) * 60));
  return { imageId: id, nw: v(), ne: v(), sw: v(), se: v() };
}

function badgeSvg(title: string, color: string): string {
  const letter = title.slice(0, 1).toUpperCase();
  return `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">
<circle cx="32" cy="32" r="30" fill="${color}" stroke="#222" stroke-width="3"/>
<text x="32" y="42" font-family="sans-serif" font-size="28" font-weight="bold" text-anchor="middle" fill="#fff">${letter}</text>
</svg>
`;
}

/** Make, process and store every image's files, and write their facts into the plan's rows. Returns the files written. */
async function makeAllImageFiles(plan: DemoPlan, store: SeedFileStores, options: DemoOptions): Promise<number> {
  const progress = options.onProgress ?? (() => {});
  let done = 0;
  progress({ phase: 'files', done, total: plan.files.length });
  const facts = await mapLimit(plan.files, options.concurrency ?? 2, async (spec) => {
    const f = await makeImageFiles(store.images, spec, { maxSide: options.maxImageSide });
    progress({ phase: 'files', done: ++done, total: plan.files.length });
    return f;
  });
  const byId = new Map(plan.images.map((r) => [r.id!, r]));
  let fileCount = 0;
  facts.forEach((f, i) => {
    const spec = plan.files[i]!;
    const row = byId.get(spec.id)!;
    Object.assign(row, imageColumnsOf(f, row.imageName!));
    plan.imageIntensities.push({ imageId: spec.id, ...f.intensities });
    plan.imageFingerprints.push(fingerprintRow(spec.id, f.fingerprint));
    fileCount += f.keys.length;
  });
  return fileCount;
}

/** Avatars, badge pictures and tag spoiler pictures. Returns the files written. */
async function makeProfileFiles(plan: DemoPlan, store: SeedFileStores): Promise<number> {
  for (const a of plan.avatars) {
    const png = await sharp(Buffer.from(avatarSvg(a.name))).resize(125, 125).png().toBuffer();
    await store.avatars.put(a.key, png);
  }
  for (const b of plan.badgeFiles) {
    await store.badges.put(b.key, Buffer.from(badgeSvg(b.title, b.color)));
  }
  for (const t of plan.tagImageFiles) {
    const picture = await generateDemoImage(t.seed, 'png');
    await store.tagImages.put(t.key, await sharp(picture.bytes).resize(250, 250, { fit: 'cover' }).png().toBuffer());
  }
  return plan.avatars.length + plan.badgeFiles.length + plan.tagImageFiles.length;
}

/**
 * Write the demo board into an (empty) database, and its files into the data directory. Returns
 * what was created. Refuses to run on a board that is not empty.
 */
export async function seedDemoBoard(db: Database, options: DemoOptions = {}): Promise<DemoSummary> {
  const started = Date.now();
  const seed = options.seed ?? 42;
  const imageCount = options.images ?? 1000;
  const withFiles = options.withFiles ?? true;
  let stores: SeedFileStores | undefined;
  if (options.storage) stores = fileStoresOf(options.storage);
  if (withFiles && !stores) throw new Error('seedDemoBoard: withFiles needs storage');
  if (!(await isBoardEmpty(db))) throw new Error('seedDemoBoard: the board is not empty');

  const plan = planDemoBoard({ seed, images: imageCount, now: options.now });
  const progress = options.onProgress ?? (() => {});
  let fileCount = 0;

  if (withFiles && stores) {
    const store = stores;
    if (options.imageFilesLater) {
      for (const row of plan.images) {
        row.processed = false;
        row.thumbnailsGenerated = false;
      }
    } else {
      fileCount += await makeAllImageFiles(plan, store, options);
    }
    fileCount += await makeProfileFiles(plan, store);
  } else {
    for (const row of plan.images) {
      // No files: nothing to serve, so clients must not try to load thumbnails.
      row.thumbnailsGenerated = false;
      plan.imageIntensities.push(syntheticIntensities(seed, row.id!));
    }
    // Nor avatars or tag spoiler images: users get generated avatars, tags none.
    for (const user of plan.users) user.avatar = null;
    for (const tag of plan.tags) tag.image = null;
  }

  const steps: Array<() => Promise<void>> = [];
  await db.transaction(async (tx) => {
    if (options.skipOutbox) await skipOutbox(tx);
    const put = <K extends keyof DemoTables>(key: K) =>
      steps.push(() => insertChunked(tx, DEMO_TABLES[key], plan[key]));
    for (const key of Object.keys(DEMO_TABLES) as (keyof DemoTables)[]) put(key);
    let done = 0;
    progress({ phase: 'rows', done, total: steps.length });
    for (const step of steps) {
      await step();
      progress({ phase: 'rows', done: ++done, total: steps.length });
    }
    await resetSequences(tx);
    if (withFiles && options.imageFilesLater) await enqueueDemoImageFiles(tx, plan.files, options.maxImageSide);
  });
  progress({ phase: 'done', done: 1, total: 1 });

  return {
    users: plan.users.length,
    tags: plan.tags.length,
    images: plan.images.length,
    taggings: plan.imageTaggings.length,
    comments: plan.comments.length,
    topics: plan.topics.length,
    posts: plan.posts.length,
    galleries: plan.galleries.length,
    filters: plan.filters.length,
    files: fileCount,
    ms: Date.now() - started,
  };
}
