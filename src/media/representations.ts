/**
 * Representations (thumbnails) of an image: philomena.md §5.4 (boxes) and §8.5 (files per type).
 *
 * A version is made for each box the image exceeds (`width > W or height > H`), scaled to fit
 * inside the box with its aspect ratio kept (ffmpeg's `force_original_aspect_ratio=decrease`
 * arithmetic, so the sizes are the reference's). Stills are decoded once, shrunk straight to the
 * largest version (JPEG shrink-on-load does most of that work), and every smaller version is
 * resized from that intermediate. Animated GIFs are resized page by page from the file for each
 * version, since quantising the output costs far more than decoding.
 *
 * | format | files                                                                |
 * |--------|----------------------------------------------------------------------|
 * | png    | `full.png` (metadata stripped), `<version>.png`                      |
 * | jpeg   | `full.jpg` (metadata stripped), `<version>.jpg`                      |
 * | gif    | `full.gif` (the original), `<version>.gif` (animated), `rendered.png` |
 * | svg    | `full.svg` (the original), `full.png`, `rendered.png`, `<version>.png`|
 * | webm   | `full.webm` (the original), `rendered.png` (needs ffmpeg)            |
 *
 * An SVG's `full.png` and `rendered.png` hold at most 2048×2048 pixels (svg-raster.ts), whatever
 * size it declares; its versions are sized from the declared size.
 *
 * Stripping is lossless (metadata segments/chunks are dropped) unless the file has an EXIF
 * orientation or a non-sRGB colour profile, in which case it is re-encoded upright in sRGB, as the
 * reference does.
 */
import sharp, { type GifOptions, type Sharp } from 'sharp';
import {
  decodeError,
  gifFrameDelayCs,
  MAX_ANIMATED_PIXELS,
  MAX_INPUT_PIXELS,
  requiresNormalisation,
  type ImageAnalysis,
} from './analyze.js';
import { MediaError } from './errors.js';
import { extractVideoFrame, type FfmpegOptions } from './ffmpeg.js';
import { formatInfo } from './formats.js';
import { gifFrameAt } from './intensities.js';
import { loadSvg, SVG_RASTER_PIXELS } from './svg-raster.js';

export type VersionName = 'thumb_tiny' | 'thumb_small' | 'thumb' | 'small' | 'medium' | 'large' | 'tall';

export interface RepresentationBox {
  name: VersionName;
  width: number;
  height: number;
}

/** The version boxes, in the reference's order. */
export const REPRESENTATION_BOXES: readonly RepresentationBox[] = Object.freeze([
  { name: 'thumb_tiny', width: 50, height: 50 },
  { name: 'thumb_small', width: 150, height: 150 },
  { name: 'thumb', width: 250, height: 250 },
  { name: 'small', width: 320, height: 240 },
  { name: 'medium', width: 800, height: 600 },
  { name: 'large', width: 1280, height: 1024 },
  { name: 'tall', width: 1024, height: 4096 },
]);

export const VERSION_NAMES: readonly VersionName[] = Object.freeze(REPRESENTATION_BOXES.map((b) => b.name));

/** The boxes an image of this size exceeds, i.e. the versions that get their own file. */
export function boxesSmallerThan(width: number, height: number): RepresentationBox[] {
  return REPRESENTATION_BOXES.filter((box) => width > box.width || height > box.height);
}

/**
 * The size of an image scaled to fit inside a box without changing its aspect ratio, rounded as
 * ffmpeg does (`av_rescale`, nearest with ties away from zero), never below 1 px.
 */
export function fitInside(width: number, height: number, boxWidth: number, boxHeight: number): { width: number; height: number } {
  const rescale = (a: number, b: number, c: number) => Math.floor((2 * a * b + c) / (2 * c));
  const w = Math.min(rescale(boxHeight, width, height), boxWidth);
  const h = Math.min(rescale(boxWidth, height, width), boxHeight);
  return { width: Math.max(1, w), height: Math.max(1, h) };
}

export interface Representation {
  /** `full`, `rendered` or a version name. */
  name: 'full' | 'rendered' | VersionName;
  ext: string;
  mimeType: string;
  buffer: Buffer;
  width: number;
  height: number;
}

export type RepresentationInput = Pick<ImageAnalysis, 'format' | 'width' | 'height'> & Partial<Pick<ImageAnalysis, 'duration'>>;

export interface RepresentationOptions extends FfmpegOptions {
  limitInputPixels?: number;
  /** JPEG quality of the versions (default 90). */
  jpegQuality?: number;
  /** Strip metadata from `full` of png/jpeg (default true). */
  stripMetadata?: boolean;
  /**
   * libimagequant effort of GIF versions, 1–10 (default 3). Quantisation dominates GIF processing:
   * sharp's default (7) costs 3–5 times as much for a barely visible difference at thumbnail sizes.
   */
  gifEffort?: number;
  /** Upper bound of width × height × frames of a GIF; default `MAX_ANIMATED_PIXELS`. */
  maxAnimatedPixels?: number;
}

const MIME: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', svg: 'image/svg+xml', webm: 'video/webm' };

export async function makeRepresentations(
  bytes: Buffer,
  analysis: RepresentationInput,
  options?: RepresentationOptions,
): Promise<Representation[]> {
  try {
    switch (analysis.format) {
      case 'jpg':
      case 'png':
        return await stillRepresentations(bytes, analysis.format, options);
      case 'gif':
        return await gifRepresentations(bytes, analysis, options);
      case 'svg':
        return await svgRepresentations(bytes, analysis);
      case 'webm':
        return await webmRepresentations(bytes, analysis, options);
    }
  } catch (error) {
    throw decodeError(error);
  }
}

function rep(name: Representation['name'], ext: string, buffer: Buffer, width: number, height: number): Representation {
  return { name, ext, mimeType: MIME[ext] ?? 'application/octet-stream', buffer, width, height };
}

interface Planned {
  box: RepresentationBox;
  width: number;
  height: number;
}

function plan(width: number, height: number): Planned[] {
  return boxesSmallerThan(width, height).map((box) => ({ box, ...fitInside(width, height, box.width, box.height) }));
}

function largestOf(planned: Planned[]): Planned | undefined {
  let best: Planned | undefined;
  for (const p of planned) if (!best || p.width * p.height > best.width * best.height) best = p;
  return best;
}

type Encoder = (image: Sharp) => Sharp;

function encoderFor(ext: string, options?: RepresentationOptions): Encoder {
  if (ext === 'jpg') {
    const quality = options?.jpegQuality ?? 90;
    return (image) => image.jpeg({ quality });
  }
  return (image) => image.png({ compressionLevel: 6 });
}

/**
 * Decodes `source` once, shrinks it to the largest planned version, and resizes every other
 * version from that intermediate.
 */
async function scaledVersions(
  source: () => Sharp,
  planned: Planned[],
  ext: string,
  encode: Encoder,
): Promise<Representation[]> {
  const largest = largestOf(planned);
  if (!largest) return [];
  const { data, info } = await source()
    .resize(largest.width, largest.height, { fit: 'fill' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { width: info.width, height: info.height, channels: info.channels };
  const out: Representation[] = [];
  for (const p of planned) {
    let image = sharp(data, { raw });
    if (p.width !== info.width || p.height !== info.height) image = image.resize(p.width, p.height, { fit: 'fill' });
    const buffer = await encode(image).toBuffer();
    out.push(rep(p.box.name, ext, buffer, p.width, p.height));
  }
  return out;
}

async function stillRepresentations(bytes: Buffer, format: 'jpg' | 'png', options?: RepresentationOptions): Promise<Representation[]> {
  const limitInputPixels = options?.limitInputPixels ?? MAX_INPUT_PIXELS;
  const ext = formatInfo(format)?.ext ?? format;
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  const normalise = requiresNormalisation(meta);
  const width = meta.autoOrient?.width ?? meta.width ?? 0;
  const height = meta.autoOrient?.height ?? meta.height ?? 0;
  const encode = encoderFor(ext, options);

  let full: Buffer | null = null;
  if (options?.stripMetadata === false) full = bytes;
  else if (!normalise) full = format === 'jpg' ? stripJpegMetadata(bytes) : stripPngMetadata(bytes);
  if (full === null) {
    // Re-encode upright in sRGB (sharp drops all metadata unless asked to keep it).
    const image = sharp(bytes, { limitInputPixels, autoOrient: true });
    full = await (format === 'jpg' ? image.jpeg({ quality: 92 }) : image.png()).toBuffer();
  }

  const versions = await scaledVersions(
    () => sharp(bytes, { limitInputPixels, autoOrient: true }),
    plan(width, height),
    ext,
    encode,
  );
  return [rep('full', ext, full, width, height), ...versions];
}

async function gifRepresentations(bytes: Buffer, analysis: RepresentationInput, options?: RepresentationOptions): Promise<Representation[]> {
  const limitInputPixels = options?.limitInputPixels ?? MAX_INPUT_PIXELS;
  const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  const width = meta.width ?? analysis.width;
  const height = meta.pageHeight ?? meta.height ?? analysis.height;
  const pages = meta.pages ?? 1;
  if (width * height * pages > (options?.maxAnimatedPixels ?? MAX_ANIMATED_PIXELS)) throw MediaError.tooLarge();
  const delay = meta.delay;
  const loop = meta.loop ?? 0;

  // The frame shown at duration/2, as PNG: `rendered.png` (and the source of the intensities).
  let totalCs = 0;
  for (let k = 0; k < pages; k++) totalCs += gifFrameDelayCs(delay?.[k]);
  const totalSeconds = analysis.duration ?? totalCs / 100;
  const page = pages > 1 ? gifFrameAt(delay ?? [], pages, totalSeconds / 2) : 0;
  const rendered = await sharp(bytes, { limitInputPixels, page }).png().toBuffer();

  // Each version straight from the file: sharp resizes an animated GIF page by page, decoding a
  // GIF is cheap next to quantising the output, and a raw strip of frames cannot be resized per page.
  const animated = pages > 1;
  const effort = options?.gifEffort ?? 3;
  const gifOptions: GifOptions = animated ? { effort, loop, ...(delay ? { delay } : {}) } : { effort };
  const versions: Representation[] = [];
  for (const p of plan(width, height)) {
    const buffer = await sharp(bytes, { limitInputPixels, animated })
      .resize(p.width, p.height, { fit: 'fill' })
      .gif(gifOptions)
      .toBuffer();
    versions.push(rep(p.box.name, 'gif', buffer, p.width, p.height));
  }
  return [rep('full', 'gif', bytes, width, height), ...versions, rep('rendered', 'png', rendered, width, height)];
}

async function svgRepresentations(bytes: Buffer, analysis: RepresentationInput): Promise<Representation[]> {
  // Rasterise once, at a bounded size (svg-raster.ts); the PNG rendering and every version come
  // from the same pixels. The versions are planned from the declared size, as for any image.
  const svg = await loadSvg(bytes, SVG_RASTER_PIXELS);
  const { data, info } = await svg.raw().toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } };
  const rendered = await sharp(data, raw).png().toBuffer();
  const width = analysis.width || info.width;
  const height = analysis.height || info.height;
  const versions = await scaledVersions(() => sharp(data, raw), plan(width, height), 'png', encoderFor('png'));
  return [
    rep('full', 'svg', bytes, width, height),
    rep('full', 'png', rendered, info.width, info.height),
    ...versions,
    rep('rendered', 'png', rendered, info.width, info.height),
  ];
}

async function webmRepresentations(bytes: Buffer, analysis: RepresentationInput, options?: RepresentationOptions): Promise<Representation[]> {
  const frame = await extractVideoFrame(bytes, (analysis.duration ?? 0) / 2, options);
  const { data: rendered, info } = await sharp(frame, { limitInputPixels: options?.limitInputPixels ?? MAX_INPUT_PIXELS })
    .png()
    .toBuffer({ resolveWithObject: true });
  return [
    rep('full', 'webm', bytes, analysis.width, analysis.height),
    rep('rendered', 'png', rendered, info.width, info.height),
  ];
}

/** The storage name of a representation: `thumb.png`, `full.jpg`, `rendered.png`. */
export function representationFileName(representation: Pick<Representation, 'name' | 'ext'>): string {
  return `${representation.name}.${representation.ext}`;
}

// ---------------------------------------------------------------------------------------------
// Lossless metadata stripping

/**
 * A JPEG without its metadata, losslessly (what `jpegtran -copy none` keeps): every APPn segment
 * except JFIF (APP0) and Adobe (APP14, which tells the decoder the colour transform), and every COM
 * segment, are dropped; so is anything after EOI. Returns null when the file cannot be parsed.
 */
export function stripJpegMetadata(bytes: Uint8Array): Buffer | null {
  const n = bytes.length;
  if (n < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  const parts: Uint8Array[] = [bytes.subarray(0, 2)];
  let i = 2;
  while (i < n) {
    if (bytes[i] !== 0xff) return null;
    while (i < n && bytes[i] === 0xff) i++;
    if (i >= n) break;
    const marker = bytes[i] ?? 0;
    i++;
    if (marker === 0xd9) {
      parts.push(Uint8Array.of(0xff, 0xd9));
      return Buffer.concat(parts);
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      parts.push(Uint8Array.of(0xff, marker));
      continue;
    }
    if (i + 2 > n) return null;
    const length = ((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0);
    if (length < 2 || i + length > n) return null;
    const payload = bytes.subarray(i + 2, i + length);
    if (keepJpegSegment(marker, payload)) {
      parts.push(Uint8Array.of(0xff, marker), bytes.subarray(i, i + length));
    }
    i += length;
    if (marker === 0xda) {
      // Entropy-coded data runs to the next marker that is not a stuffed 0xFF00 or a restart.
      const start = i;
      while (i < n) {
        if (bytes[i] === 0xff) {
          const next = bytes[i + 1];
          if (next === undefined) {
            i = n;
            break;
          }
          if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
            i += 2;
            continue;
          }
          if (next === 0xff) {
            i++;
            continue;
          }
          break;
        }
        i++;
      }
      parts.push(bytes.subarray(start, i));
    }
  }
  // Truncated before EOI: keep what there is and close it, as jpegtran does with a warning.
  parts.push(Uint8Array.of(0xff, 0xd9));
  return Buffer.concat(parts);
}

function keepJpegSegment(marker: number, payload: Uint8Array): boolean {
  if (marker === 0xfe) return false; // COM
  if (marker === 0xe0) return startsWithAscii(payload, 'JFIF\0');
  if (marker === 0xee) return startsWithAscii(payload, 'Adobe');
  if (marker >= 0xe1 && marker <= 0xef) return false; // EXIF, XMP, ICC, IPTC, MPF …
  return true;
}

function startsWithAscii(bytes: Uint8Array, text: string): boolean {
  if (bytes.length < text.length) return false;
  for (let k = 0; k < text.length; k++) if (bytes[k] !== text.charCodeAt(k)) return false;
  return true;
}

/** PNG chunks kept by `stripPngMetadata`: image data, transparency, colour and animation. */
const PNG_KEEP = new Set([
  'IHDR', 'PLTE', 'IDAT', 'IEND', 'tRNS', 'gAMA', 'cHRM', 'sRGB', 'iCCP', 'sBIT', 'cICP', 'mDCv', 'cLLi', 'acTL', 'fcTL', 'fdAT',
]);

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * A PNG without its metadata chunks (text, EXIF, time, physical size, private chunks), losslessly;
 * chunks are copied whole so their CRCs stay valid. Returns null when the file cannot be parsed.
 */
export function stripPngMetadata(bytes: Uint8Array): Buffer | null {
  if (bytes.length < 8 || PNG_SIGNATURE.some((b, k) => bytes[k] !== b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: Uint8Array[] = [bytes.subarray(0, 8)];
  let offset = 8;
  while (offset + 12 <= bytes.length) {
    const length = view.getUint32(offset);
    const end = offset + 12 + length;
    if (end > bytes.length) return null;
    const type = String.fromCharCode(bytes[offset + 4] ?? 0, bytes[offset + 5] ?? 0, bytes[offset + 6] ?? 0, bytes[offset + 7] ?? 0);
    if (PNG_KEEP.has(type)) parts.push(bytes.subarray(offset, end));
    offset = end;
    if (type === 'IEND') return Buffer.concat(parts);
  }
  return null;
}
