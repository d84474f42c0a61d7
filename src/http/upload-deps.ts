/**
 * The optional members of the app's deps that the upload and reverse-search routes read beside
 * `AppDeps`: the shared limiter and the upload settings. Kept apart from both routes, which
 * import no route.
 */
import type { RequestLimiter } from '../limits/index.js';
import type { FfmpegOptions } from '../media/ffmpeg.js';
import type { AppDeps } from './context.js';

export interface UploadOptions {
  /** Largest accepted file in bytes (default 131,072,000, the reference's limit). */
  maxBytes?: number;
  /** ffprobe/ffmpeg settings for WebM analysis. */
  ffmpeg?: FfmpegOptions;
  /** Time limit of one download (default 60 s). */
  fetchTimeoutMs?: number;
}

/** Optional members of the app's deps used by the upload and reverse-search routes. */
export interface UploadDeps {
  /** The process's request limiter; default one per app built from `config.limits`. */
  limiter?: RequestLimiter;
  upload?: UploadOptions;
}

export type DepsWithUploads = AppDeps & UploadDeps;
