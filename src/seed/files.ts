/**
 * Real files for seeded images: a generated picture, analysed and processed like an upload, with
 * the original and every representation written to the image store.
 */
import sharp from 'sharp';
import { generateDemoImage, type DemoKind } from '../media/demo-images.js';
import type { MediaFormat, MediaMimeType } from '../media/formats.js';
import type { Fingerprint } from '../media/fingerprint.js';
import type { Intensities } from '../media/intensities.js';
import { processImage } from '../media/process.js';
import { pathFor, type MediaStorage } from '../media/storage.js';

export interface ImageFileSpec {
  id: number;
  createdAt: Date;
  kind: DemoKind;
  /** Seed of the picture. */
  seed: number;
}

export interface ImageFileOptions {
  /**
   * Longest side of png, jpeg and svg pictures (default 1024). The generator draws up to
   * 2000×1500; processing a thousand of those takes minutes, and the demo only needs to show
   * that every representation works. GIFs are small already and are kept as generated.
   */
  maxSide?: number;
}

/** Default longest side of seeded pictures: large enough that every image has a `medium` version or more. */
export const DEFAULT_MAX_SIDE = 800;

const SVG_SIZE = /^(<svg\b[^>]*?\swidth=")(\d+)("\s+height=")(\d+)(")/;

/**
 * A demo picture of the given kind, at most `maxSide` pixels on its longest side. Stills are
 * drawn from the generator's SVG scene scaled down (its viewBox keeps the drawing intact) and
 * encoded as the generator encodes them.
 */
export async function demoPicture(seed: number, kind: DemoKind, maxSide = DEFAULT_MAX_SIDE): Promise<{ bytes: Buffer; name: string }> {
  if (kind === 'gif') {
    const gif = await generateDemoImage(seed, 'gif');
    return { bytes: gif.bytes, name: gif.name };
  }
  const scene = await generateDemoImage(seed, 'svg');
  let svg = scene.bytes.toString('utf8');
  const m = SVG_SIZE.exec(svg);
  if (m) {
    const w = Number(m[2]);
    const h = Number(m[4]);
    const k = Math.min(1, maxSide / Math.max(w, h));
    if (k < 1) {
      svg = svg.replace(SVG_SIZE, `$1${Math.max(1, Math.round(w * k))}$3${Math.max(1, Math.round(h * k))}$5`);
    }
  }
  const vector = Buffer.from(svg, 'utf8');
  const base = scene.name.replace(/\.svg$/, '');
  switch (kind) {
    case 'svg':
      return { bytes: vector, name: `${base}.svg` };
    case 'png':
      return { bytes: await sharp(vector).png({ compressionLevel: 6 }).toBuffer(), name: `${base}.png` };
    case 'jpeg':
      return {
        bytes: await sharp(vector).flatten({ background: '#000000' }).jpeg({ quality: 86 }).toBuffer(),
        name: `${base}.jpg`,
      };
  }
}

/** What the image row records about its file. */
export interface ImageFileFacts {
  name: string;
  format: MediaFormat;
  mimeType: MediaMimeType;
  width: number;
  height: number;
  aspectRatio: number;
  animated: boolean;
  duration: number;
  size: number;
  origSize: number;
  sha512: string;
  origSha512: string;
  intensities: Intensities;
  fingerprint: Fingerprint;
  /** Key of the stored original, `Y/M/D/ID/full.EXT`. */
  storageKey: string;
  /** Every key written, the original first. */
  keys: string[];
}

/**
 * The image row's columns that its generated file decides, for a row named `imageName` (its
 * extension becomes the file's).
 */
export function imageColumnsOf(facts: ImageFileFacts, imageName: string) {
  return {
    imageName: imageName.replace(/\.[a-z0-9]+$/, `.${facts.format}`),
    imageWidth: facts.width,
    imageHeight: facts.height,
    imageSize: facts.size,
    imageOrigSize: facts.origSize,
    imageFormat: facts.format,
    imageMimeType: facts.mimeType,
    imageAspectRatio: facts.aspectRatio,
    imageDuration: facts.duration,
    isAnimated: facts.animated,
    imageSha512Hash: facts.sha512,
    imageOrigSha512Hash: facts.origSha512,
    storageKey: facts.storageKey,
  };
}

/** The file extension of the original of a format. */
export function originalExtension(format: MediaFormat): string {
  return format;
}

/** Generate, process and store one image's files. */
export async function makeImageFiles(store: MediaStorage, spec: ImageFileSpec, options: ImageFileOptions = {}): Promise<ImageFileFacts> {
  const demo = await demoPicture(spec.seed, spec.kind, options.maxSide);
  const { analysis, intensities, fingerprint, representations, processed } = await processImage(demo.bytes);
  const keys: string[] = [];
  let storageKey: string | undefined;
  for (const rep of representations) {
    const key = pathFor(spec.createdAt, spec.id, rep.name, rep.ext);
    await store.put(key, rep.buffer);
    if (rep.name === 'full' && rep.ext === originalExtension(analysis.format)) {
      storageKey = key;
      keys.unshift(key);
    } else {
      keys.push(key);
    }
  }
  if (!storageKey) {
    // Every format's representations start with its own full file; keep the original regardless.
    storageKey = pathFor(spec.createdAt, spec.id, 'full', originalExtension(analysis.format));
    await store.put(storageKey, demo.bytes);
    keys.unshift(storageKey);
  }
  return {
    name: demo.name,
    format: analysis.format,
    mimeType: analysis.mimeType,
    width: processed.width,
    height: processed.height,
    aspectRatio: processed.height === 0 ? 0 : processed.width / processed.height,
    animated: analysis.animated,
    duration: analysis.duration,
    size: processed.size,
    origSize: analysis.size,
    sha512: processed.sha512,
    origSha512: analysis.sha512,
    intensities,
    fingerprint,
    storageKey,
    keys,
  };
}
