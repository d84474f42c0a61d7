/**
 * The `process-image` job (reference §8.5): load the stored original, process it (metadata
 * stripped, intensities, fingerprint, a version for every box smaller than the image), store every file, and
 * write back the processed file's hash, size and dimensions with the intensities and the
 * fingerprint and near-duplicate reports (duplicates.ts), setting
 * `thumbnails_generated` and `processed` (the outbox trigger on `images` reindexes the image).
 *
 * Files per type (only the versions whose box is smaller than the image are made):
 *
 * | type | files                                                                                  |
 * |------|----------------------------------------------------------------------------------------|
 * | png  | `full.png` (metadata stripped), `<version>.png`                                        |
 * | jpeg | `full.jpg` (metadata stripped), `<version>.jpg`                                        |
 * | gif  | `full.gif`, `<version>.gif`, `rendered.png`; `full.webm`, `full.mp4` (with ffmpeg)      |
 * | svg  | `full.svg`, `full.png`, `rendered.png`, `<version>.png`                                |
 * | webm | `full.webm`, `rendered.png`; with ffmpeg `full.mp4`, `<version>.webm`, `<version>.mp4`, |
 * |      | and `thumb_tiny.gif` / `thumb_small.gif` / `thumb.gif` for those versions              |
 *
 * Idempotent: every file is written atomically (and identical input gives identical output),
 * the rewritten original (`full.png`/`full.jpg` without metadata) is written after every other
 * file, and the row is updated last in one transaction. A run killed at any point is simply run
 * again by the next worker; processing an already-stripped original gives the same bytes.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq, sql } from 'drizzle-orm';
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { imageIntensities, images } from '../../db/schema/index.js';
import type { Job, JobHandler } from '../../jobs/index.js';
import { MEDIA_MESSAGES, MediaError } from '../../media/errors.js';
import { ffmpegAvailable, type FfmpegOptions } from '../../media/ffmpeg.js';
import { formatInfo } from '../../media/formats.js';
import { processImage, type ProcessedImage, type ProcessOptions } from '../../media/process.js';
import { boxesSmallerThan, fitInside, type Representation } from '../../media/representations.js';
import { jobDecodes } from '../../media/sandbox/decodes.js';
import type { DecodeSandbox } from '../../media/sandbox/pool.js';
import { pathFor, type MediaStorage } from '../../media/storage.js';
import { recordNearDuplicates } from './duplicates.js';
import { saveFingerprint } from './fingerprints.js';
import { PROCESS_IMAGE_JOB } from './submit.js';

export interface MediaProcessingOptions extends ProcessOptions {
  /** Time limit of one ffmpeg transcode (default 10 minutes). */
  transcodeTimeoutMs?: number;
  /** Make the video files (gif → webm/mp4, webm versions) when ffmpeg is present (default true). */
  videos?: boolean;
}

/** A file to store under the image's directory: `<name>.<ext>`. */
export interface StoredFile {
  name: string;
  ext: string;
  buffer: Buffer;
}

export interface ProcessedFiles {
  result: ProcessedImage;
  /** Every file, the image's own `full.<ext>` last. */
  files: StoredFile[];
}

/**
 * Process the bytes of an original into every file the image needs. Pure apart from ffmpeg
 * subprocesses; used by the job and by the benchmark. With a `sandbox`, the decoding runs in one
 * of its children (killed past its deadline or memory); without, in this process.
 */
export async function processForStorage(bytes: Buffer, options: MediaProcessingOptions = {}, sandbox?: DecodeSandbox): Promise<ProcessedFiles> {
  const { transcodeTimeoutMs: _transcode, videos: _videos, ...decodeOptions } = options;
  const result = sandbox ? await sandbox.run('process', bytes, decodeOptions) : await processImage(bytes, options);
  const ownExt = formatInfo(result.analysis.format)?.ext ?? result.analysis.format;
  const files: StoredFile[] = result.representations.map((r: Representation) => ({ name: r.name, ext: r.ext, buffer: r.buffer }));
  if ((options.videos ?? true) && (result.analysis.format === 'gif' || result.analysis.format === 'webm') && (await ffmpegAvailable(options))) {
    files.push(...(await videoFiles(bytes, result, options)));
  }
  const isOwnFull = (f: StoredFile) => f.name === 'full' && f.ext === ownExt;
  return { result, files: [...files.filter((f) => !isOwnFull(f)), ...files.filter(isOwnFull)] };
}

export interface ProcessJobDeps {
  db: Database;
  fileStore: MediaStorage;
  media?: MediaProcessingOptions;
  /** Where the decoding runs; default the jobs' sandbox (`jobDecodes`). */
  sandbox?: DecodeSandbox;
}

export type ProcessOutcome = 'processed' | 'already-processed' | 'missing';

/** Process one stored image; see the module comment. */
export async function processStoredImage(deps: ProcessJobDeps, imageId: number): Promise<ProcessOutcome> {
  const { db, fileStore } = deps;
  const [image] = await db.select().from(images).where(eq(images.id, imageId)).limit(1);
  if (!image || image.destroyedContent) return 'missing';
  if (image.processed && image.thumbnailsGenerated) return 'already-processed';

  const ext = formatInfo(image.imageFormat)?.ext ?? image.imageFormat;
  const originalKey = image.storageKey ?? pathFor(image.createdAt, image.id, 'full', ext);
  const bytes = await fileStore.get(originalKey);
  if (bytes === null) throw new Error(`the original of image ${imageId} is missing (${originalKey})`);

  const { result, files } = await processForStorage(bytes, deps.media, deps.sandbox ?? jobDecodes);
  for (const file of files) {
    const key = pathFor(image.createdAt, image.id, file.name, file.ext);
    if (key === originalKey && file.buffer.equals(bytes)) continue;
    await fileStore.put(key, file.buffer);
  }

  const { analysis, intensities, fingerprint, processed } = result;
  await db.transaction(async (tx) => {
    await tx
      .insert(imageIntensities)
      .values({ imageId, ...intensities })
      .onConflictDoUpdate({ target: imageIntensities.imageId, set: { ...intensities } });
    await saveFingerprint(tx, imageId, fingerprint);
    await recordNearDuplicates(tx, imageId, fingerprint);
    await tx
      .update(images)
      .set({
        storageKey: originalKey,
        imageSha512Hash: processed.sha512,
        imageSize: processed.size,
        imageWidth: processed.width,
        imageHeight: processed.height,
        imageAspectRatio: processed.height === 0 ? 0 : processed.width / processed.height,
        imageDuration: analysis.duration,
        isAnimated: analysis.animated,
        thumbnailsGenerated: true,
        processed: true,
        updatedAt: sql`now()`,
      })
      .where(eq(images.id, imageId));
  });
  return 'processed';
}

/**
 * The visible end state of an image whose processing failed its every attempt: `processed: true`
 * (nothing more will happen to it by itself) with `thumbnails_generated: false` (clients must not
 * load its representations). `npm run admin -- jobs retry` queues the job again; processing that
 * succeeds sets both, as for any image.
 */
export async function markProcessingGivenUp(db: Database, imageId: number): Promise<void> {
  await db.update(images).set({ processed: true, updatedAt: new Date() }).where(and(eq(images.id, imageId), eq(images.thumbnailsGenerated, false)));
}

export interface JobHandlerDeps {
  db: Database;
  fileStore: MediaStorage;
  config?: Pick<Config, 'dataDir'>;
  media?: MediaProcessingOptions;
  /** Where the decoding runs; default the jobs' sandbox (`jobDecodes`). */
  sandbox?: DecodeSandbox;
  log?: (msg: string, detail?: Record<string, unknown>) => void;
}

/**
 * The job handlers of this context, for a `JobWorker`:
 * `new JobWorker({ db, handlers: createJobHandlers({ db, fileStore, config }) })`.
 */
export function createJobHandlers(deps: JobHandlerDeps): Record<string, JobHandler> {
  return {
    [PROCESS_IMAGE_JOB]: async (job: Job) => {
      const imageId = Number(job.payload.imageId);
      if (!Number.isInteger(imageId) || imageId <= 0) throw new Error(`bad ${PROCESS_IMAGE_JOB} payload: ${JSON.stringify(job.payload)}`);
      const started = Date.now();
      let outcome: ProcessOutcome;
      try {
        outcome = await processStoredImage({ db: deps.db, fileStore: deps.fileStore, ...(deps.media ? { media: deps.media } : {}), ...(deps.sandbox ? { sandbox: deps.sandbox } : {}) }, imageId);
      } catch (error) {
        // A file that cost more than the sandbox allows will cost as much again: no retry.
        if (isTooCostly(error)) {
          await markProcessingGivenUp(deps.db, imageId);
          deps.log?.(`image ${imageId}: given up, ${MEDIA_MESSAGES.tooCostly}`, { ms: Date.now() - started, attempt: job.attempts });
          return;
        }
        // The last attempt: the queue parks the job, and the image shows that its processing is over.
        if (job.attempts >= job.maxAttempts) await markProcessingGivenUp(deps.db, imageId);
        throw error;
      }
      deps.log?.(`image ${imageId}: ${outcome}`, { ms: Date.now() - started, attempt: job.attempts });
    },
  };
}

const isTooCostly = (error: unknown) => error instanceof MediaError && error.message === MEDIA_MESSAGES.tooCostly;

// ---------------------------------------------------------------------------------------------
// Video files (ffmpeg)

const THUMB_GIF_VERSIONS = new Set(['thumb_tiny', 'thumb_small', 'thumb']);

interface Output {
  name: string;
  ext: string;
  /** Arguments between the input and the output path. */
  args: string[];
}

const vp8 = ['-c:v', 'libvpx', '-pix_fmt', 'yuv420p', '-deadline', 'good', '-cpu-used', '5', '-auto-alt-ref', '0', '-crf', '31', '-b:v', '5M', '-f', 'webm'];
const h264 = ['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-profile:v', 'main', '-preset', 'veryfast', '-crf', '20', '-movflags', '+faststart', '-f', 'mp4'];
/** H.264 in 4:2:0 needs even dimensions: pad by one pixel where needed. */
const EVEN = 'pad=ceil(iw/2)*2:ceil(ih/2)*2';

/** gif → `full.webm` + `full.mp4`; webm → `full.mp4` and each version as webm, mp4 (and gif for thumbnails). */
async function videoFiles(bytes: Buffer, result: ProcessedImage, options: MediaProcessingOptions): Promise<StoredFile[]> {
  const { analysis } = result;
  const outputs: Output[] = [];
  const filters: string[] = [];
  if (analysis.format === 'gif') {
    filters.push(`[0:v]split=2[a][b];[a]format=yuv420p[w];[b]${EVEN},format=yuv420p[mp4]`);
    outputs.push({ name: 'full', ext: 'webm', args: ['-map', '[w]', ...vp8] });
    outputs.push({ name: 'full', ext: 'mp4', args: ['-map', '[mp4]', ...h264] });
  } else {
    const versions = boxesSmallerThan(analysis.width, analysis.height).map((box) => ({ box, ...fitInside(analysis.width, analysis.height, box.width, box.height) }));
    const gifs = versions.filter((v) => THUMB_GIF_VERSIONS.has(v.box.name));
    const branches = 1 + versions.length * 2 + gifs.length;
    const labels = Array.from({ length: branches }, (_, k) => `[s${k}]`);
    filters.push(`[0:v]split=${branches}${labels.join('')}`);
    let k = 0;
    filters.push(`[s${k++}]${EVEN},format=yuv420p[fullmp4]`);
    outputs.push({ name: 'full', ext: 'mp4', args: ['-map', '[fullmp4]', '-map', '0:a:0?', '-c:a', 'aac', ...h264] });
    for (const v of versions) {
      filters.push(`[s${k++}]scale=${v.width}:${v.height},format=yuv420p[${v.box.name}w]`);
      outputs.push({ name: v.box.name, ext: 'webm', args: ['-map', `[${v.box.name}w]`, '-an', ...vp8] });
      filters.push(`[s${k++}]scale=${v.width}:${v.height},${EVEN},format=yuv420p[${v.box.name}m]`);
      outputs.push({ name: v.box.name, ext: 'mp4', args: ['-map', `[${v.box.name}m]`, '-an', ...h264] });
    }
    for (const v of gifs) {
      filters.push(`[s${k++}]fps=15,scale=${v.width}:${v.height},split[${v.box.name}a][${v.box.name}b];[${v.box.name}a]palettegen=stats_mode=diff[${v.box.name}p];[${v.box.name}b][${v.box.name}p]paletteuse[${v.box.name}g]`);
      outputs.push({ name: v.box.name, ext: 'gif', args: ['-map', `[${v.box.name}g]`, '-loop', '0', '-f', 'gif'] });
    }
  }
  return transcode(bytes, analysis.format, filters.join(';'), outputs, options);
}

async function transcode(bytes: Buffer, inputExt: string, filter: string, outputs: Output[], options: MediaProcessingOptions): Promise<StoredFile[]> {
  const dir = await mkdtemp(join(tmpdir(), 'tagwise-video-'));
  try {
    const input = join(dir, `input.${inputExt}`);
    await writeFile(input, bytes);
    const args = ['-v', 'error', '-nostdin', '-y', '-i', input, '-filter_complex', filter];
    outputs.forEach((o, k) => args.push(...o.args, '-map_metadata', '-1', join(dir, `out${k}.${o.ext}`)));
    await runFfmpeg(args, options);
    return await Promise.all(outputs.map(async (o, k) => ({ name: o.name, ext: o.ext, buffer: await readFile(join(dir, `out${k}.${o.ext}`)) })));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function runFfmpeg(args: string[], options: FfmpegOptions & { transcodeTimeoutMs?: number }): Promise<void> {
  const binary = options.ffmpegPath ?? process.env.FFMPEG_PATH ?? 'ffmpeg';
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.transcodeTimeoutMs ?? 600_000);
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 8192) stderr += chunk.toString('utf8');
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(error.code === 'ENOENT' ? MediaError.webmUnsupported(error) : error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`ffmpeg failed (${signal ?? code}): ${stderr.trim().slice(0, 2000)}`));
    });
  });
}
