/**
 * Media: pure functions over image bytes (no database, no HTTP). See each module for the rules.
 */
export {
  ACCEPTED_MIME_TYPES,
  FORMATS,
  RENDERED_EXTENSION,
  formatForMimeType,
  formatInfo,
  isAcceptedMimeType,
  mimeTypeForFormat,
  representationExtension,
  type FormatInfo,
  type MediaFormat,
  type MediaMimeType,
} from './formats.js';
export { MEDIA_MESSAGES, MediaError, isMediaError, type MediaErrorField, type MediaErrorMap } from './errors.js';
export { isSvg, sniff, sniffFormat, sniffMimeType, trueMimeType, type SniffResult } from './sniff.js';
export {
  MAX_ANIMATED_PIXELS,
  MAX_IMAGE_SIZE,
  MAX_INPUT_PIXELS,
  analyzeImage,
  dimensionError,
  imageNameError,
  sha512Hex,
  type AnalyzeOptions,
  type ImageAnalysis,
} from './analyze.js';
export {
  computeIntensities,
  intensitiesFromPixels,
  type Intensities,
  type IntensitiesOptions,
  type IntensitiesSource,
} from './intensities.js';
export {
  REPRESENTATION_BOXES,
  VERSION_NAMES,
  boxesSmallerThan,
  fitInside,
  makeRepresentations,
  representationFileName,
  stripJpegMetadata,
  stripPngMetadata,
  type Representation,
  type RepresentationBox,
  type RepresentationInput,
  type RepresentationOptions,
  type VersionName,
} from './representations.js';
export { processImage, type ProcessOptions, type ProcessedImage } from './process.js';
export { StorageFullError, StorageKeyError, datePath, pathFor, validateKey, type MediaStorage, type StoredFileStat } from './storage.js';
export { DirectoryStorage } from './storage-directory.js';
export { S3Storage } from './storage-s3.js';
export { imageStorage, openStorage } from './storage-open.js';
export { demoKindFor, generateDemoImage, type DemoImage, type DemoKind } from './demo-images.js';
export { ffmpegAvailable, type FfmpegOptions } from './ffmpeg.js';
