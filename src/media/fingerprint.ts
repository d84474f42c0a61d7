/**
 * Perceptual fingerprints for reverse search: two 64-bit hashes of the frame the intensities are
 * taken from (intensities.ts: png/jpeg directly, gif/webm the frame at half the duration, svg its
 * rendering), flattened over black as the intensities are.
 *
 * - `phash`: the DCT hash. The frame is reduced to 32×32 luma, its 2-D DCT taken, and each of the
 *   8×8 lowest frequencies becomes a bit: 1 when above the median of those 64. Low frequencies
 *   survive rescaling, recompression, brightness changes and small overlays.
 * - `chash`: the same DCT hash of the centre of the frame (the middle 80 % of each side). A crop of
 *   the border moves every low frequency of the whole frame a little, but the centre region a lot
 *   less, so a cropped copy that drifted from `phash` is usually still near `chash`.
 *
 * Hashes are 16 lowercase hex digits, most significant bit first: bit k (0 = top-left
 * coefficient, row-major) is bit 63−k of the number.
 */
import sharp, { type Region } from 'sharp';
import { popcount32 } from '../lib/popcount.js';
import { dct2 } from './dct.js';
import { decodeSearchFrame, intensitiesFromPixels, type Intensities, type IntensitiesOptions, type IntensitiesSource, type Raster } from './intensities.js';

export interface Fingerprint {
  phash: string;
  chash: string;
}

/** Stored with each fingerprint; raised when the algorithm changes, so a backfill recomputes. */
export const FINGERPRINT_VERSION = 1;

/** Side of the luma grid the DCT runs on, and of the block of low frequencies kept. */
const GRID = 32;
const LOW = 8;
/** Share of each side kept for the centre hash. */
const CENTRE = 0.8;

export async function computeFingerprint(bytes: Buffer, source?: IntensitiesSource, options?: IntensitiesOptions): Promise<Fingerprint> {
  return fingerprintOfRaster(await decodeSearchFrame(bytes, source, options));
}

/** The intensities and the fingerprint of one file, from one decode of its frame. */
export async function computeSearchKeys(
  bytes: Buffer,
  source?: IntensitiesSource,
  options?: IntensitiesOptions,
): Promise<{ intensities: Intensities; fingerprint: Fingerprint }> {
  const raster = await decodeSearchFrame(bytes, source, options);
  const intensities = intensitiesFromPixels(raster.data, raster.width, raster.height, raster.channels, raster.bits);
  return { intensities, fingerprint: await fingerprintOfRaster(raster) };
}

export async function fingerprintOfRaster(raster: Raster): Promise<Fingerprint> {
  const pixels = to8Bit(raster);
  const mx = Math.floor((raster.width * (1 - CENTRE)) / 2);
  const my = Math.floor((raster.height * (1 - CENTRE)) / 2);
  const centre = { left: mx, top: my, width: Math.max(1, raster.width - 2 * mx), height: Math.max(1, raster.height - 2 * my) };
  const [whole, middle] = await Promise.all([lumaGrid(pixels, raster, null), lumaGrid(pixels, raster, centre)]);
  return { phash: dctHash(whole), chash: dctHash(middle) };
}

/** The DCT hash of a GRID×GRID luma block (see the module comment). */
export function dctHash(luma: ArrayLike<number>): string {
  const low = dct2(luma, GRID, LOW);
  const sorted = Float64Array.from(low).sort();
  const median = ((sorted[LOW * LOW / 2 - 1] as number) + (sorted[LOW * LOW / 2] as number)) / 2;
  // Symmetric pictures have coefficients that are zero but for rounding, which the summation
  // order decides: a bit is set only when clearly above the median.
  const tolerance = 1e-9 * Math.max(Math.abs(sorted[0] as number), Math.abs(sorted[sorted.length - 1] as number));
  const above = (c: number) => c - median > tolerance;
  let hi = 0;
  let lo = 0;
  for (let k = 0; k < 32; k++) if (above(low[k] as number)) hi |= 1 << (31 - k);
  for (let k = 0; k < 32; k++) if (above(low[32 + k] as number)) lo |= 1 << (31 - k);
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}

const R_Y = 0.2126;
const G_Y = 0.7152;
const B_Y = 0.0722;

/**
 * The raster (or a region of it) flattened over black and resized to GRID×GRID, as luma with the
 * intensities' coefficients. The aspect ratio is not kept: a hash compares pictures of one shape.
 */
async function lumaGrid(pixels: Uint8Array, raster: Raster, region: Region | null): Promise<Float64Array> {
  let image = sharp(pixels, { raw: { width: raster.width, height: raster.height, channels: raster.channels as 1 | 2 | 3 | 4 } });
  if (region) image = image.extract(region);
  const { data, info } = await image
    .flatten({ background: '#000000' })
    .toColourspace('srgb')
    .resize(GRID, GRID, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const out = new Float64Array(GRID * GRID);
  const c = info.channels;
  for (let i = 0; i < out.length; i++) {
    out[i] = c >= 3 ? (data[i * c] as number) * R_Y + (data[i * c + 1] as number) * G_Y + (data[i * c + 2] as number) * B_Y : (data[i * c] as number);
  }
  return out;
}

function to8Bit(raster: Raster): Uint8Array {
  if (raster.bits === 8) return raster.data as Uint8Array;
  const out = new Uint8Array(raster.data.length);
  for (let i = 0; i < out.length; i++) out[i] = (raster.data[i] as number) >> 8;
  return out;
}

/** Number of differing bits of two 16-digit hex hashes. */
export function hammingDistance(a: string, b: string): number {
  return popcount32((parseInt(a.slice(0, 8), 16) ^ parseInt(b.slice(0, 8), 16)) >>> 0) + popcount32((parseInt(a.slice(8), 16) ^ parseInt(b.slice(8), 16)) >>> 0);
}

/** How far two fingerprints are apart: the smaller Hamming distance of their two hashes. */
export function fingerprintDistance(a: Fingerprint, b: Fingerprint): number {
  return Math.min(hammingDistance(a.phash, b.phash), hammingDistance(a.chash, b.chash));
}
