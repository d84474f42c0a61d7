/**
 * The whole processing of one file, for callers that want everything at once (the demo seeder,
 * the upload job): analysis of the upload, corner intensities, the perceptual fingerprint, and every representation, plus the
 * attributes of the processed `full` file that the reference writes back after thumbnailing
 * (`image_sha512_hash`, `image_size`, `image_width`, `image_height`; the `orig_*` ones stay those
 * of the upload).
 */
import { analyzeImage, sha512Hex, type AnalyzeOptions, type ImageAnalysis } from './analyze.js';
import { computeSearchKeys, type Fingerprint, type QueryHashes } from './fingerprint.js';
import type { Intensities } from './intensities.js';
import { makeRepresentations, type Representation, type RepresentationOptions } from './representations.js';

export interface ProcessedImage {
  /** Analysis of the bytes as uploaded (`orig_*` attributes, format, duration, animation). */
  analysis: ImageAnalysis;
  intensities: Intensities;
  /** Perceptual hashes of the same frame as the intensities. */
  fingerprint: Fingerprint;
  /** The hashes of its mirror images and quarter turns, for finding turned near-duplicates. */
  query: QueryHashes;
  /** `full` (original format) first, then the versions, then `rendered`/`full.png` where made. */
  representations: Representation[];
  /** The processed `full` file: what `sha512_hash`, `size`, `width` and `height` become. */
  processed: { sha512: string; size: number; width: number; height: number };
}

export type ProcessOptions = AnalyzeOptions & RepresentationOptions;

export async function processImage(bytes: Buffer, options?: ProcessOptions): Promise<ProcessedImage> {
  // An image accepted once is processed whatever the intake limit says now.
  const analysis = await analyzeImage(bytes, { maxPixels: Infinity, ...options });
  const [{ intensities, fingerprint, query }, representations] = await Promise.all([
    computeSearchKeys(bytes, analysis, options),
    makeRepresentations(bytes, analysis, options),
  ]);
  const full = representations.find((r) => r.name === 'full') ?? null;
  const processed =
    full === null || full.buffer === bytes
      ? { sha512: analysis.sha512, size: analysis.size, width: analysis.width, height: analysis.height }
      : { sha512: sha512Hex(full.buffer), size: full.buffer.length, width: full.width, height: full.height };
  return { analysis, intensities, fingerprint, query, representations, processed };
}
