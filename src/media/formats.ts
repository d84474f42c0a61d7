/**
 * The accepted media formats (philomena.md §8.2 item 4) and their names.
 *
 * `format` is the value stored as `image_format` and used as the file extension of `full.<ext>`:
 * JPEG is `jpg`. Legacy rows may hold `jpeg`; `representationExtension` keeps whatever it is given.
 */

export type MediaFormat = 'gif' | 'jpg' | 'png' | 'svg' | 'webm';
export type MediaMimeType = 'image/gif' | 'image/jpeg' | 'image/png' | 'image/svg+xml' | 'video/webm';

export interface FormatInfo {
  format: MediaFormat;
  mimeType: MediaMimeType;
  /** Extension of the stored original (`full.<ext>`). */
  ext: string;
  /** Extension of the generated versions (`thumb.<ext>` …). */
  representationExt: string;
  /** Whether files of this format can hold more than one frame. */
  canAnimate: boolean;
  /** Whether processing this format needs ffmpeg/ffprobe. */
  needsFfmpeg: boolean;
}

export const FORMATS: readonly FormatInfo[] = Object.freeze([
  { format: 'gif', mimeType: 'image/gif', ext: 'gif', representationExt: 'gif', canAnimate: true, needsFfmpeg: false },
  { format: 'jpg', mimeType: 'image/jpeg', ext: 'jpg', representationExt: 'jpg', canAnimate: false, needsFfmpeg: false },
  { format: 'png', mimeType: 'image/png', ext: 'png', representationExt: 'png', canAnimate: true, needsFfmpeg: false },
  { format: 'svg', mimeType: 'image/svg+xml', ext: 'svg', representationExt: 'png', canAnimate: false, needsFfmpeg: false },
  { format: 'webm', mimeType: 'video/webm', ext: 'webm', representationExt: 'webm', canAnimate: true, needsFfmpeg: true },
]);

export const ACCEPTED_MIME_TYPES: readonly MediaMimeType[] = Object.freeze(FORMATS.map((f) => f.mimeType));

const BY_MIME = new Map<string, FormatInfo>(FORMATS.map((f) => [f.mimeType, f]));
const BY_FORMAT = new Map<string, FormatInfo>(FORMATS.map((f) => [f.format, f]));

export function isAcceptedMimeType(mime: string): mime is MediaMimeType {
  return BY_MIME.has(mime);
}

/** The format of an accepted MIME type, or null. */
export function formatForMimeType(mime: string): MediaFormat | null {
  return BY_MIME.get(mime)?.format ?? null;
}

/** Facts about a format; `jpeg` (legacy rows) is read as `jpg`. */
export function formatInfo(format: string): FormatInfo | undefined {
  const key = format.toLowerCase();
  return BY_FORMAT.get(key === 'jpeg' ? 'jpg' : key);
}

export function mimeTypeForFormat(format: MediaFormat): MediaMimeType {
  const info = BY_FORMAT.get(format);
  if (!info) throw new TypeError(`unknown media format: ${String(format)}`);
  return info.mimeType;
}

/**
 * The extension of an image's representation URLs and files (`thumb_url` in the reference):
 * the lowercased format, except that `svg` becomes `png`. `webm` stays `webm`.
 */
export function representationExtension(format: string): string {
  const lower = format.toLowerCase();
  return lower === 'svg' ? 'png' : lower;
}

/** The extension of the `rendered` version, whatever the format. */
export const RENDERED_EXTENSION = 'png';
