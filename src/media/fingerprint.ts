/**
 * Perceptual fingerprints for reverse search: 64-bit hashes of the frame the intensities are
 * taken from (intensities.ts: png/jpeg directly, gif/webm the frame at half the duration, svg its
 * rendering), flattened over black as the intensities are.
 *
 * Stored per image (`Fingerprint`):
 * - `phash`: the DCT hash. The frame is reduced to 32×32 luma, its 2-D DCT taken, and each of the
 *   8×8 lowest frequencies becomes a bit: 1 when clearly above the median of those 64. Low
 *   frequencies survive rescaling, recompression, brightness changes and small overlays.
 * - `chash`: the same DCT hash of the centre of the frame (the middle 80 % of each side). A crop of
 *   the border moves every low frequency of the whole frame a little, but the centre region a lot
 *   less, so a cropped copy that drifted from `phash` is usually still near `chash`.
 * - `rhashes`: the DCT hashes of five regions of 90 % × 90 %: the centre and the four corners (nw,
 *   ne, sw, se). A copy with 5 % cut off every side, or 10 % off two adjacent sides, is one of
 *   these regions, so its whole-frame hash lands near one of them where `phash` and `chash` have
 *   drifted too far.
 *
 * Asked with a picture (`QueryHashes`), its whole-frame and centre hashes are taken of the eight
 * mirror images and rotations of its luma grids (the dihedral group of the square): a mirrored or
 * quarter-turned copy has, up to resampling, the grid of the original turned back, so one of the
 * eight variants matches the stored hashes. A picture of other proportions turned by 90° still
 * maps onto the same square grid turned, as the grid ignores the aspect ratio.
 *
 * "Clearly above": a coefficient must exceed the median by 1 % of the largest non-constant
 * coefficient. Pictures of a few flat areas (symmetric ones, four flat quadrants) have many
 * coefficients that are zero but for resampling noise; without the margin that noise decides
 * their bits, and a smaller copy of the same picture lands half the hash away.
 *
 * Hashes are 16 lowercase hex digits, most significant bit first: bit k (0 = top-left
 * coefficient, row-major) is bit 63−k of the number.
 */
import sharp, { type Region } from 'sharp';
import { popcount32 } from '../lib/popcount.js';
import { dct2 } from './dct.js';
import { decodeSearchFrame, intensitiesFromPixels, luma, type Intensities, type IntensitiesOptions, type IntensitiesSource, type Raster } from './intensities.js';

export interface Fingerprint {
  phash: string;
  chash: string;
  /** The 90 % regions' hashes: centre, nw, ne, sw, se. */
  rhashes: string[];
}

/** The hashes a picture is searched with: each of its eight mirror images and rotations, the picture itself first. */
export interface QueryHashes {
  /** Whole-frame hashes: compared with `phash` and `rhashes`. */
  whole: string[];
  /** Centre hashes: compared with `chash`. */
  centre: string[];
}

/** Stored with each fingerprint; raised when the algorithm changes, so a backfill recomputes. */
export const FINGERPRINT_VERSION = 2;

/** Side of the luma grid the DCT runs on, and of the block of low frequencies kept. */
const GRID = 32;
const LOW = 8;
/** Share of each side kept for the centre hash. */
const CENTRE = 0.8;
/** Share of each side kept for the regions' hashes. */
const CORNER = 0.9;
/** How far above the median a coefficient must be, as a share of the largest non-constant one. */
const MARGIN = 0.01;

export async function computeFingerprint(bytes: Buffer, source?: IntensitiesSource, options?: IntensitiesOptions): Promise<Fingerprint> {
  return (await hashesOfRaster(await decodeSearchFrame(bytes, source, options))).fingerprint;
}

/** The intensities, the fingerprint and the query hashes of one file, from one decode of its frame. */
export async function computeSearchKeys(
  bytes: Buffer,
  source?: IntensitiesSource,
  options?: IntensitiesOptions,
): Promise<{ intensities: Intensities; fingerprint: Fingerprint; query: QueryHashes }> {
  const raster = await decodeSearchFrame(bytes, source, options);
  const intensities = intensitiesFromPixels(raster.data, raster.width, raster.height, raster.channels, raster.bits);
  return { intensities, ...(await hashesOfRaster(raster)) };
}

/** The regions hashed: the whole frame, its centre (80 %), then the 90 % regions: centre, nw, ne, sw, se. */
function regionsOf(width: number, height: number): (Region | null)[] {
  const mx = Math.floor((width * (1 - CENTRE)) / 2);
  const my = Math.floor((height * (1 - CENTRE)) / 2);
  const centre = { left: mx, top: my, width: Math.max(1, width - 2 * mx), height: Math.max(1, height - 2 * my) };
  const cw = Math.max(1, Math.round(width * CORNER));
  const ch = Math.max(1, Math.round(height * CORNER));
  const corners = [
    [0, 0],
    [width - cw, 0],
    [0, height - ch],
    [width - cw, height - ch],
  ].map(([left, top]) => ({ left: left as number, top: top as number, width: cw, height: ch }));
  const ex = Math.round((width - cw) / 2);
  const ey = Math.round((height - ch) / 2);
  return [null, centre, { left: ex, top: ey, width: cw, height: ch }, ...corners];
}

export async function hashesOfRaster(raster: Raster): Promise<{ fingerprint: Fingerprint; query: QueryHashes }> {
  const pixels = to8Bit(raster);
  const [whole, centre, ...corners] = await Promise.all(regionsOf(raster.width, raster.height).map((r) => lumaGrid(pixels, raster, r)));
  const fingerprint = { phash: dctHash(whole!), chash: dctHash(centre!), rhashes: corners.map(dctHash) };
  const query = { whole: DIHEDRAL.map((t) => dctHash(turned(whole!, t))), centre: DIHEDRAL.map((t) => dctHash(turned(centre!, t))) };
  return { fingerprint, query };
}

/** The eight symmetries of the square as (transpose, mirror x, mirror y); the identity first. */
const DIHEDRAL: readonly (readonly [boolean, boolean, boolean])[] = [false, true].flatMap((t) =>
  [false, true].flatMap((fx) => [false, true].map((fy) => [t, fx, fy] as const)),
);

/** A GRID×GRID grid mirrored and/or transposed. */
function turned(grid: Float64Array, [transpose, mirrorX, mirrorY]: readonly [boolean, boolean, boolean]): Float64Array {
  if (!transpose && !mirrorX && !mirrorY) return grid;
  const out = new Float64Array(GRID * GRID);
  for (let y = 0; y < GRID; y++) {
    for (let x = 0; x < GRID; x++) {
      const sx = mirrorX ? GRID - 1 - x : x;
      const sy = mirrorY ? GRID - 1 - y : y;
      out[y * GRID + x] = grid[transpose ? sx * GRID + sy : sy * GRID + sx] as number;
    }
  }
  return out;
}

/** The DCT hash of a GRID×GRID luma block (see the module comment). */
export function dctHash(luma: ArrayLike<number>): string {
  const low = dct2(luma, GRID, LOW);
  const sorted = Float64Array.from(low).sort();
  const median = ((sorted[LOW * LOW / 2 - 1] as number) + (sorted[LOW * LOW / 2] as number)) / 2;
  let largest = 0;
  for (let k = 1; k < low.length; k++) largest = Math.max(largest, Math.abs(low[k] as number));
  // Coefficients zero but for resampling noise (flat areas, symmetric pictures) stay 0 bits
  // whatever the noise; an all-flat picture, with no such coefficient, has only its constant set.
  const margin = MARGIN * largest;
  const above = (c: number) => c - median > margin;
  let hi = 0;
  let lo = 0;
  for (let k = 0; k < 32; k++) if (above(low[k] as number)) hi |= 1 << (31 - k);
  for (let k = 0; k < 32; k++) if (above(low[32 + k] as number)) lo |= 1 << (31 - k);
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
}

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
    out[i] = c >= 3 ? luma(data[i * c] as number, data[i * c + 1] as number, data[i * c + 2] as number) : (data[i * c] as number);
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

/** How far two fingerprints are apart: the smaller Hamming distance of their whole-frame and centre hashes. */
export function fingerprintDistance(a: Pick<Fingerprint, 'phash' | 'chash'>, b: Pick<Fingerprint, 'phash' | 'chash'>): number {
  return Math.min(hammingDistance(a.phash, b.phash), hammingDistance(a.chash, b.chash));
}
