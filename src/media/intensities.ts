/**
 * Corner intensities for reverse image search, exactly as the reference's tool computes them
 * (philomena.md §7):
 *
 * 1. decode to 8-bit RGB; alpha is composited over black (libpng's integer `png_composite`; 16-bit
 *    samples are composited at 16 bits and then scaled with `png_do_scale_16_to_8`);
 * 2. with h2 = ⌊h/2⌋ and w2 = ⌊w/2⌋, pixel (i, j) counts in nw if i ≤ h2 ∧ j ≤ w2, ne if
 *    i ≤ h2 ∧ j ≥ w2, sw if i ≥ h2 ∧ j ≤ w2, se if i ≥ h2 ∧ j ≥ w2 (the middle row and column
 *    count twice, the centre four times);
 * 3. R, G and B are summed per quadrant;
 * 4. each sum is divided by dim = (roundUpEven(w)·roundUpEven(h))/4 and
 *    luma = R̄·0.2126 + Ḡ·0.7152 + B̄·0.0722;
 * 5. values are rounded to 6 decimals (the tool prints `%f`).
 *
 * Sources: png and jpeg directly; gif the frame shown at duration/2; svg its rendering at a bounded
 * size (at most 256×256, svg-raster.ts); webm the frame at duration/2 (needs ffmpeg).
 */
import sharp, { type Sharp } from 'sharp';
import { decodeError, MAX_INPUT_PIXELS, requiresNormalisation, gifFrameDelayCs } from './analyze.js';
import { MediaError } from './errors.js';
import { extractVideoFrame, probeVideo, type FfmpegOptions } from './ffmpeg.js';
import type { MediaFormat } from './formats.js';
import { sniff } from './sniff.js';
import { loadSvg, SVG_SEARCH_PIXELS } from './svg-raster.js';

export interface Intensities {
  nw: number;
  ne: number;
  sw: number;
  se: number;
}

/** The luma of a colour with the reference's coefficients (Rec. 709), step 4 above. */
export function luma(r: number, g: number, b: number): number {
  return r * 0.2126 + g * 0.7152 + b * 0.0722;
}

/** What `computeIntensities` needs to know about the file; sniffed/probed when not given. */
export interface IntensitiesSource {
  format: MediaFormat;
  /** Seconds; used to pick the frame of a gif or webm. */
  duration?: number;
}

export interface IntensitiesOptions extends FfmpegOptions {
  limitInputPixels?: number;
}

export async function computeIntensities(
  bytes: Buffer,
  source?: IntensitiesSource,
  options?: IntensitiesOptions,
): Promise<Intensities> {
  const raster = await decodeSearchFrame(bytes, source, options);
  return intensitiesFromPixels(raster.data, raster.width, raster.height, raster.channels, raster.bits);
}

/**
 * The raster reverse search looks at: png and jpeg directly, gif and webm the frame at half the
 * duration, svg its rendering. The intensities and the perceptual fingerprint both read it.
 */
export async function decodeSearchFrame(bytes: Buffer, source?: IntensitiesSource, options?: IntensitiesOptions): Promise<Raster> {
  let format = source?.format;
  if (format === undefined) {
    const sniffed = await sniff(bytes);
    if (sniffed.format === null) throw MediaError.invalidMime(sniffed.mimeType);
    format = sniffed.format;
  }
  return decodeForIntensities(bytes, format, source?.duration, options);
}

export interface Raster {
  /** Interleaved samples, rows top to bottom. */
  data: Uint8Array | Uint16Array;
  width: number;
  height: number;
  /** 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA. */
  channels: number;
  bits: 8 | 16;
}

/**
 * The pure part: intensities of a decoded raster. `data` holds 8-bit samples (`bits` 8) or 16-bit
 * samples (`bits` 16, a Uint16Array).
 */
export function intensitiesFromPixels(
  data: Uint8Array | Uint16Array,
  width: number,
  height: number,
  channels: number,
  bits: 8 | 16 = 8,
): Intensities {
  if (width <= 0 || height <= 0) throw MediaError.corrupt();
  if (channels < 1 || channels > 4 || data.length < width * height * channels) {
    throw new RangeError('pixel buffer does not match its dimensions');
  }
  const h2 = Math.floor(height / 2);
  const w2 = Math.floor(width / 2);
  const rowLength = width * channels;
  const sample = samplerFor(data, channels, bits);

  let nwR = 0, nwG = 0, nwB = 0;
  let neR = 0, neG = 0, neB = 0;
  let swR = 0, swG = 0, swB = 0;
  let seR = 0, seG = 0, seB = 0;
  const west: Sums = [0, 0, 0];
  const east: Sums = [0, 0, 0];

  for (let i = 0; i < height; i++) {
    const row = i * rowLength;
    // West: columns j ≤ w2; east: columns j ≥ w2 (column w2 is in both).
    sample(row, 0, w2 + 1, west);
    sample(row, w2, width, east);
    if (i <= h2) {
      nwR += west[0]; nwG += west[1]; nwB += west[2];
      neR += east[0]; neG += east[1]; neB += east[2];
    }
    if (i >= h2) {
      swR += west[0]; swG += west[1]; swB += west[2];
      seR += east[0]; seG += east[1]; seB += east[2];
    }
  }

  // (roundUpEven(w) · roundUpEven(h)) / 4 as an integer quotient, then used as a double.
  const dim = Math.floor((roundUpEven(width) * roundUpEven(height)) / 4);
  const meanLuma = (r: number, g: number, b: number) => round6(luma(r / dim, g / dim, b / dim));
  return {
    nw: meanLuma(nwR, nwG, nwB),
    ne: meanLuma(neR, neG, neB),
    sw: meanLuma(swR, swG, swB),
    se: meanLuma(seR, seG, seB),
  };
}

type Sums = [number, number, number];

/**
 * A function that sums the composited R, G and B of columns [from, to) of the row starting at
 * sample index `row` into `out`. Specialised per layout so the common cases run without branches.
 */
function samplerFor(
  data: Uint8Array | Uint16Array,
  channels: number,
  bits: 8 | 16,
): (row: number, from: number, to: number, out: Sums) => void {
  if (bits === 8 && channels === 3) {
    return (row, from, to, out) => {
      let r = 0, g = 0, b = 0;
      for (let p = row + from * 3, end = row + to * 3; p < end; p += 3) {
        r += data[p] as number;
        g += data[p + 1] as number;
        b += data[p + 2] as number;
      }
      out[0] = r; out[1] = g; out[2] = b;
    };
  }
  if (bits === 8 && channels === 4) {
    return (row, from, to, out) => {
      let r = 0, g = 0, b = 0;
      for (let p = row + from * 4, end = row + to * 4; p < end; p += 4) {
        const a = data[p + 3] as number;
        if (a === 255) {
          r += data[p] as number;
          g += data[p + 1] as number;
          b += data[p + 2] as number;
        } else if (a !== 0) {
          r += composite8(data[p] as number, a);
          g += composite8(data[p + 1] as number, a);
          b += composite8(data[p + 2] as number, a);
        }
      }
      out[0] = r; out[1] = g; out[2] = b;
    };
  }
  // Gray, gray+alpha and 16-bit layouts: the general path.
  const hasAlpha = channels === 2 || channels === 4;
  const gray = channels <= 2;
  return (row, from, to, out) => {
    let sr = 0, sg = 0, sb = 0;
    for (let j = from; j < to; j++) {
      const p = row + j * channels;
      let r = data[p] ?? 0;
      let g = gray ? r : (data[p + 1] ?? 0);
      let b = gray ? r : (data[p + 2] ?? 0);
      if (bits === 16) {
        if (hasAlpha) {
          const a = data[p + channels - 1] ?? 0;
          r = composite16(r, a);
          g = gray ? r : composite16(g, a);
          b = gray ? r : composite16(b, a);
        }
        r = scale16To8(r);
        g = gray ? r : scale16To8(g);
        b = gray ? r : scale16To8(b);
      } else if (hasAlpha) {
        const a = data[p + channels - 1] ?? 0;
        if (a !== 255) {
          r = composite8(r, a);
          g = gray ? r : composite8(g, a);
          b = gray ? r : composite8(b, a);
        }
      }
      sr += r; sg += g; sb += b;
    }
    out[0] = sr; out[1] = sg; out[2] = sb;
  };
}

function roundUpEven(n: number): number {
  return n % 2 === 0 ? n : n + 1;
}

/** `%f`: six decimals. `toFixed` rounds the exact binary value, as printf does. */
function round6(x: number): number {
  return Number(x.toFixed(6));
}

/** libpng `png_composite(out, fg, alpha, 0)`: fg·α/255 rounded, in integers. */
function composite8(fg: number, alpha: number): number {
  const temp = fg * alpha + 128;
  return (temp + (temp >> 8)) >> 8;
}

/** libpng `png_composite_16(out, fg, alpha, 0)`. */
function composite16(fg: number, alpha: number): number {
  const temp = fg * alpha + 32768; // < 2^32: use floating arithmetic, not 32-bit ints
  return Math.floor((temp + Math.floor(temp / 65536)) / 65536);
}

/** libpng `png_do_scale_16_to_8`: (v·255 + 32895) >> 16, computed from the high and low bytes. */
function scale16To8(v: number): number {
  const hi = v >> 8;
  const lo = v & 0xff;
  return hi + (((lo - hi + 128) * 65535) >> 24);
}

/** Index of the GIF frame shown at `seconds` (delays in ms as sharp reports them). */
export function gifFrameAt(delaysMs: readonly number[], frameCount: number, seconds: number): number {
  const targetCs = seconds * 100;
  let start = 0;
  for (let k = 0; k < frameCount; k++) {
    const end = start + gifFrameDelayCs(delaysMs[k]);
    if (targetCs < end) return k;
    start = end;
  }
  return Math.max(0, frameCount - 1);
}

async function decodeForIntensities(
  bytes: Buffer,
  format: MediaFormat,
  duration: number | undefined,
  options?: IntensitiesOptions,
): Promise<Raster> {
  const limitInputPixels = options?.limitInputPixels ?? MAX_INPUT_PIXELS;
  try {
    switch (format) {
      case 'png':
      case 'jpg': {
        const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
        const normalise = requiresNormalisation(meta);
        const input = normalise
          ? sharp(bytes, { limitInputPixels, autoOrient: true })
          : sharp(bytes, { limitInputPixels, ignoreIcc: true });
        if (meta.depth === 'ushort' && !normalise) {
          const { data, info } = await input.toColourspace('rgb16').raw({ depth: 'ushort' }).toBuffer({ resolveWithObject: true });
          const samples = new Uint16Array(data.buffer, data.byteOffset, data.byteLength / 2);
          return { data: samples, width: info.width, height: info.height, channels: info.channels, bits: 16 };
        }
        return await raw8(input);
      }
      case 'gif': {
        const meta = await sharp(bytes, { limitInputPixels: false }).metadata();
        const frames = meta.pages ?? 1;
        let total = duration;
        if (total === undefined) {
          total = 0;
          for (let k = 0; k < frames; k++) total += gifFrameDelayCs(meta.delay?.[k]) / 100;
        }
        const page = frames > 1 ? gifFrameAt(meta.delay ?? [], frames, total / 2) : 0;
        return await raw8(sharp(bytes, { limitInputPixels, page }));
      }
      case 'svg':
        // At a bounded size (svg-raster.ts): the quadrant averages and the 32×32 grid of the
        // fingerprint hardly change with the scale, and the declared size bounds nothing.
        return await raw8(await loadSvg(bytes, SVG_SEARCH_PIXELS));
      case 'webm': {
        const seconds = duration ?? (await probeVideo(bytes, options)).duration;
        const frame = await extractVideoFrame(bytes, seconds / 2, options);
        return await raw8(sharp(frame, { limitInputPixels, ignoreIcc: true }));
      }
    }
  } catch (error) {
    throw decodeError(error);
  }
}

async function raw8(image: Sharp): Promise<Raster> {
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, channels: info.channels, bits: 8 };
}
