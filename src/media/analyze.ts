/**
 * File analysis of a submitted image (philomena.md §8.2 item 4): sniffed type, dimensions,
 * animation, duration, size and SHA-512, with the reference's validation rules and messages.
 *
 * Only headers are read here (sharp's `metadata()`, which does not decode pixels), so a
 * decompression bomb is refused by its declared dimensions before anything is decoded; every
 * decode elsewhere in this folder also passes `limitInputPixels`.
 */
import { createHash } from 'node:crypto';
import sharp, { type Metadata } from 'sharp';
import { pixelLimitError } from './decode-budget.js';
import { MediaError, MEDIA_MESSAGES } from './errors.js';
import { probeVideo, type FfmpegOptions } from './ffmpeg.js';
import type { MediaFormat, MediaMimeType } from './formats.js';
import { sniff } from './sniff.js';
import { loadSvg, SVG_SEARCH_PIXELS } from './svg-raster.js';

/** Largest accepted upload, in bytes (`image_size` ≤ 131,072,000). */
export const MAX_IMAGE_SIZE = 131_072_000;

/**
 * Pixel limit handed to sharp for every decode. It is sharp's default (16383²), which is a little
 * above what the reference's dimension rule lets through, so every accepted image can be processed.
 */
export const MAX_INPUT_PIXELS = 16383 * 16383;

/**
 * Cap on width × height × frames of an animated GIF. sharp's `limitInputPixels` judges one frame at
 * a time, so without this a file of many tiny frames on a huge canvas would decode for minutes.
 * 2^30 is, for instance, 1,000 frames of 1024×1024. The reference has no such rule; the message is
 * its "dimensions are too large to process".
 */
export const MAX_ANIMATED_PIXELS = 2 ** 30;

export interface ImageAnalysis {
  mimeType: MediaMimeType;
  format: MediaFormat;
  width: number;
  height: number;
  /** width / height (0 when height is 0). */
  aspectRatio: number;
  animated: boolean;
  /** Seconds. GIF: the sum of the frame delays; stills: 0. */
  duration: number;
  frameCount: number;
  /** Bytes. */
  size: number;
  /** Lowercase hex SHA-512 of the bytes. */
  sha512: string;
}

export interface AnalyzeOptions extends FfmpegOptions {
  /** Upper bound of `size`; default `MAX_IMAGE_SIZE`. */
  maxSize?: number;
  /** Upper bound of width × height × frames of a GIF; default `MAX_ANIMATED_PIXELS`. */
  maxAnimatedPixels?: number;
  /**
   * Upper bound of width × height, refused on `image_width` and `image_height`; default
   * `MAX_IMAGE_PIXELS` (decode-budget.ts). Processing an image already accepted passes Infinity.
   */
  maxPixels?: number;
}

export async function analyzeImage(bytes: Buffer, options?: AnalyzeOptions): Promise<ImageAnalysis> {
  const maxSize = options?.maxSize ?? MAX_IMAGE_SIZE;
  if (bytes.length > maxSize) throw MediaError.sizeOutOfRange(bytes.length, maxSize);

  const { mimeType, format } = await sniff(bytes);
  if (format === null) throw MediaError.invalidMime(mimeType);

  let dims: Dimensions;
  switch (format) {
    case 'png':
      dims = await analyzePng(bytes);
      break;
    case 'gif':
      dims = await analyzeGif(bytes);
      break;
    case 'jpg':
    case 'svg':
      dims = await analyzeStill(bytes);
      break;
    case 'webm':
      dims = await analyzeWebm(bytes, options);
      break;
  }

  const problem = dimensionError(dims.width, dims.height) ?? pixelLimitError(dims.width, dims.height, options?.maxPixels);
  if (problem) throw problem;
  if (format === 'gif' && dims.width * dims.height * dims.frameCount > (options?.maxAnimatedPixels ?? MAX_ANIMATED_PIXELS)) {
    throw MediaError.tooLarge();
  }

  return {
    mimeType: mimeType as MediaMimeType,
    format,
    width: dims.width,
    height: dims.height,
    aspectRatio: dims.height === 0 ? 0 : dims.width / dims.height,
    animated: dims.frameCount > 1,
    duration: dims.frameCount > 1 ? dims.duration : 0,
    frameCount: dims.frameCount,
    size: bytes.length,
    sha512: sha512Hex(bytes),
  };
}

/**
 * The reference's dimension checks: zero sizes are "contents corrupt…", and
 * `((w+63 & −64)·8 + 1024)·(h+128) ≥ 2,147,483,647` is "dimensions are too large to process".
 */
export function dimensionError(width: number, height: number): MediaError | null {
  if (!(width > 0) || !(height > 0) || !Number.isFinite(width) || !Number.isFinite(height)) return MediaError.corrupt();
  const w = BigInt(Math.trunc(width));
  const h = BigInt(Math.trunc(height));
  if ((((w + 63n) & -64n) * 8n + 1024n) * (h + 128n) >= 2_147_483_647n) return MediaError.tooLarge();
  return null;
}

/**
 * Decode the whole file once, as processing will, so that a truncated or corrupt body is refused
 * at submission instead of failing every processing attempt. Shrink-on-load keeps it cheap: the
 * pixels are reduced to at most 256 px on a side while they are read (JPEG decodes at a fraction
 * of its size directly; PNG and GIF rows stream through the reduction), so memory does not grow
 * with the dimensions. An SVG is rendered at the search frame's bounded size (svg-raster.ts): its
 * declared size says nothing of what rendering it costs. A WebM was already read whole by ffprobe.
 */
export async function verifyImageDecodes(bytes: Buffer, format: ImageAnalysis['format']): Promise<void> {
  if (format === 'webm') return;
  try {
    const input =
      format === 'svg'
        ? await loadSvg(bytes, SVG_SEARCH_PIXELS)
        : sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, sequentialRead: true, animated: format === 'gif' });
    await input
      .resize(256, 256, { fit: 'inside', withoutEnlargement: true })
      .raw()
      .toBuffer();
  } catch (error) {
    throw decodeError(error);
  }
}

/** `image_name` ≤ 255 bytes, as the reference validates the upload's file name. */
export function imageNameError(name: string): MediaError | null {
  return Buffer.byteLength(name, 'utf8') > 255 ? new MediaError('image_name', MEDIA_MESSAGES.nameTooLong) : null;
}

export function sha512Hex(bytes: Uint8Array): string {
  return createHash('sha512').update(bytes).digest('hex');
}

interface Dimensions {
  width: number;
  height: number;
  frameCount: number;
  duration: number;
}

async function headerMetadata(bytes: Buffer, animated = false): Promise<Metadata> {
  try {
    // Header only: `metadata()` decodes no pixels, so no pixel limit is needed to read the
    // declared dimensions, which the reference rule then judges.
    return await sharp(bytes, { limitInputPixels: false, animated }).metadata();
  } catch (error) {
    throw decodeError(error);
  }
}

/** Maps a sharp/libvips failure to the reference's messages. */
export function decodeError(error: unknown): MediaError {
  if (error instanceof MediaError) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit|too large|dimensions/i.test(message)) return MediaError.tooLarge(error);
  return MediaError.corrupt(error);
}

async function analyzeStill(bytes: Buffer): Promise<Dimensions> {
  const meta = await headerMetadata(bytes);
  return { width: meta.width ?? 0, height: meta.height ?? 0, frameCount: 1, duration: 0 };
}

async function analyzeGif(bytes: Buffer): Promise<Dimensions> {
  const meta = await headerMetadata(bytes);
  const frameCount = meta.pages ?? 1;
  const delays = meta.delay ?? [];
  let centiseconds = 0;
  for (let i = 0; i < frameCount; i++) centiseconds += gifFrameDelayCs(delays[i]);
  return { width: meta.width ?? 0, height: meta.pageHeight ?? meta.height ?? 0, frameCount, duration: centiseconds / 100 };
}

/**
 * A GIF frame's delay in centiseconds as players (and ffmpeg's demuxer, which the reference's
 * analyser uses) see it: delays under 2 cs are shown for 10 cs.
 */
export function gifFrameDelayCs(delayMs: number | undefined): number {
  const cs = Math.round((delayMs ?? 0) / 10);
  return cs < 2 ? 10 : cs;
}

async function analyzePng(bytes: Buffer): Promise<Dimensions> {
  const meta = await headerMetadata(bytes);
  const apng = readApngTiming(bytes);
  return {
    width: meta.width ?? 0,
    height: meta.height ?? 0,
    frameCount: apng?.frameCount ?? 1,
    duration: apng?.duration ?? 0,
  };
}

/** Frame count and duration of an animated PNG (`acTL` / `fcTL` chunks), or null for a still PNG. */
export function readApngTiming(bytes: Uint8Array): { frameCount: number; duration: number } | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 8;
  let frameCount = 0;
  let duration = 0;
  let seenActl = false;
  while (offset + 8 <= bytes.length) {
    const length = view.getUint32(offset);
    const type = String.fromCharCode(bytes[offset + 4] ?? 0, bytes[offset + 5] ?? 0, bytes[offset + 6] ?? 0, bytes[offset + 7] ?? 0);
    const data = offset + 8;
    if (data + length > bytes.length) break;
    if (type === 'acTL' && length >= 8) {
      seenActl = true;
      frameCount = view.getUint32(data);
    } else if (type === 'fcTL' && length >= 26) {
      const num = view.getUint16(data + 20);
      const den = view.getUint16(data + 22) || 100;
      duration += num / den;
    } else if (type === 'IDAT' && !seenActl) {
      return null;
    } else if (type === 'IEND') {
      break;
    }
    offset = data + length + 4;
  }
  return seenActl && frameCount > 1 ? { frameCount, duration } : null;
}

async function analyzeWebm(bytes: Buffer, options?: FfmpegOptions): Promise<Dimensions> {
  const probe = await probeVideo(bytes, options);
  return { width: probe.width, height: probe.height, frameCount: probe.frameCount, duration: probe.duration };
}

/**
 * Whether a PNG/JPEG must be re-encoded rather than losslessly stripped: an EXIF orientation other
 * than "top-left", or an embedded colour profile that is not sRGB (the reference's `requires_strip?`).
 * Such files are auto-oriented and converted to sRGB by processing, and their intensities are taken
 * from the converted pixels.
 */
export function requiresNormalisation(meta: Pick<Metadata, 'orientation' | 'icc'>): boolean {
  if (meta.orientation !== undefined && meta.orientation > 1) return true;
  return meta.icc !== undefined && meta.icc.length > 0 && !isSrgbProfile(meta.icc);
}

/** A loose test of an ICC profile being sRGB: its description names sRGB (ASCII or UTF-16BE). */
export function isSrgbProfile(icc: Uint8Array): boolean {
  const buf = Buffer.from(icc.buffer, icc.byteOffset, icc.byteLength);
  if (buf.includes('sRGB', 0, 'latin1')) return true;
  return buf.includes(Buffer.from([0, 0x73, 0, 0x52, 0, 0x47, 0, 0x42]));
}
