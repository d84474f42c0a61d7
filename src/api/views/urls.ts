/**
 * Public URLs of files (reference §5.4 "URLs", made absolute: derpibooru/philomena#62). Image
 * files live under `{cdnUrl}/img` (or the import's origin, for images imported without a file), avatars under `{cdnUrl}/avatars`, badge images under
 * `{cdnUrl}/badge-img` and tag spoiler images under `{cdnUrl}/tag-img`; in embedded mode the
 * service serves all four itself (routes/files.ts).
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { representationExtension } from '../../media/formats.js';
import { datePath } from '../../media/storage.js';
import type { Representations as RepresentationsSchema } from '../schemas/resources.js';

type UrlConfig = Pick<Config, 'cdnUrl' | 'originCdnUrl'>;

/**
 * The root of an image's files: the board's own, or, for an image imported without its file, the
 * origin it was imported from when one was given.
 */
export const imageRoot = (config: UrlConfig, image: Pick<ImageUrlFields, 'storageKey'>) =>
  `${image.storageKey === null && config.originCdnUrl !== undefined ? config.originCdnUrl : config.cdnUrl}/img`;
export const avatarUrl = (config: UrlConfig, avatar: string) => `${config.cdnUrl}/avatars/${avatar}`;
export const badgeImageUrl = (config: UrlConfig, image: string) => `${config.cdnUrl}/badge-img/${image}`;
export const tagImageUrl = (config: UrlConfig, image: string) => `${config.cdnUrl}/tag-img/${image}`;

/** What URL building needs of an image. */
export interface ImageUrlFields {
  id: number;
  createdAt: Date;
  imageFormat: string;
  imageMimeType: string;
  imageWidth: number;
  imageHeight: number;
  /** Null when the board holds no file of the image. */
  storageKey: string | null;
}

export { datePath };

/** `{root}/Y/M/D/{id}/{name}.{ext}`; `svg` images use `png` files. */
export function thumbUrl(config: UrlConfig, image: ImageUrlFields, name: string): string {
  const ext = name === 'rendered' ? 'png' : representationExtension(image.imageFormat);
  return `${imageRoot(config, image)}/${datePath(image.createdAt)}/${image.id}/${name}.${ext}`;
}

/** Tag slugs joined by `_`, only `[a-z0-9_+-]` kept, at most 151 characters. */
export function slugFragment(tagSlugsInDisplayOrder: readonly string[]): string {
  return tagSlugsInDisplayOrder.join('_').replace(/[^a-z0-9_+-]/g, '').slice(0, 151);
}

/**
 * `{root}/{view|download}/Y/M/D/{file}.{ext}`: `file` is the id (short) or `{id}__{slugs}`;
 * `svg` becomes `png` except for downloads.
 */
export function prettyUrl(
  config: UrlConfig,
  image: ImageUrlFields,
  tagSlugsInDisplayOrder: readonly string[],
  short: boolean,
  download: boolean,
): string {
  const file = short ? String(image.id) : `${image.id}__${slugFragment(tagSlugsInDisplayOrder)}`;
  const format = image.imageFormat.toLowerCase();
  const ext = download ? format : representationExtension(format);
  return `${imageRoot(config, image)}/${download ? 'download' : 'view'}/${datePath(image.createdAt)}/${file}.${ext}`;
}

/** The bounding box of each generated version; an image larger than the box has its own file. */
export const REPRESENTATION_BOXES = {
  thumb_tiny: [50, 50],
  thumb_small: [150, 150],
  thumb: [250, 250],
  small: [320, 240],
  medium: [800, 600],
  large: [1280, 1024],
  tall: [1024, 4096],
} as const satisfies Record<string, readonly [number, number]>;

export type RepresentationName = keyof typeof REPRESENTATION_BOXES;

export type Representations = z.output<typeof RepresentationsSchema>;

/**
 * All eight representation URLs (a version not larger than the image is the original `full`
 * file), plus `webm` and `mp4` for gif images.
 */
export function representations(config: UrlConfig, image: ImageUrlFields, tagSlugs: readonly string[]): Representations {
  const version = (name: RepresentationName) => {
    const [w, h] = REPRESENTATION_BOXES[name];
    return thumbUrl(config, image, image.imageWidth > w || image.imageHeight > h ? name : 'full');
  };
  const urls: Representations = {
    thumb_tiny: version('thumb_tiny'),
    thumb_small: version('thumb_small'),
    thumb: version('thumb'),
    small: version('small'),
    medium: version('medium'),
    large: version('large'),
    tall: version('tall'),
    full: prettyUrl(config, image, tagSlugs, true, false),
  };
  if (image.imageMimeType === 'image/gif') {
    const full = thumbUrl(config, image, 'full');
    urls.webm = full.replace(/\.gif$/, '.webm');
    urls.mp4 = full.replace(/\.gif$/, '.mp4');
  }
  return urls;
}
