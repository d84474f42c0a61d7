/**
 * The oEmbed answer (spec "oEmbed response", reference §5.8), unwrapped. Brand-named fields use
 * the neutral word `site`; the provider is this service (`siteName`, `baseUrl` forced to https).
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';

import type { Oembed } from '../schemas/resources.js';
import { prettyUrl, thumbUrl } from './urls.js';
import type { ImageRow, ImageTag } from '../../contexts/images/types.js';

export const OEMBED_CACHE_AGE = 7200;

export type OembedJson = z.output<typeof Oembed>;

/** The provider URL: the public base URL with the https scheme (usage term 7). */
export function httpsBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/^http:\/\//i, 'https://');
}

/**
 * The embed thumbnail: the `large` version scaled into 1280×1024 when the image is larger,
 * otherwise the original file at its own size.
 */
export function embedThumbnail(
  config: Pick<Config, 'cdnUrl'>,
  image: ImageRow,
): { url: string; width: number; height: number } {
  const { imageWidth: w, imageHeight: h } = image;
  if (w > 1280 || h > 1024) {
    const ar = image.imageAspectRatio > 0 ? image.imageAspectRatio : w / Math.max(h, 1);
    const [tw, th] = ar > 1.25 ? [1280, Math.floor(1280 / ar)] : [Math.floor(1024 * ar), 1024];
    return { url: thumbUrl(config, image, 'large'), width: tw, height: th };
  }
  return { url: thumbUrl(config, image, 'full'), width: w, height: h };
}

export function oembedView(
  config: Pick<Config, 'cdnUrl' | 'baseUrl' | 'siteName'>,
  image: ImageRow,
  tagsInDisplayOrder: readonly ImageTag[],
  sources: readonly string[],
): OembedJson {
  const names = tagsInDisplayOrder.map((t) => t.name);
  const thumbnail = embedThumbnail(config, image);
  return {
    type: 'photo',
    version: '1.0',
    title: `#${image.id} - ${names.join(', ')} - ${config.siteName}`,
    author_name: tagsInDisplayOrder
      .filter((t) => t.namespace === 'artist')
      .map((t) => t.nameInNamespace)
      .join(', '),
    author_url: sources[0] ?? '',
    provider_name: config.siteName,
    provider_url: httpsBaseUrl(config.baseUrl),
    cache_age: OEMBED_CACHE_AGE,
    thumbnail_url: thumbnail.url,
    thumbnail_width: thumbnail.width,
    thumbnail_height: thumbnail.height,
    url: prettyUrl(config, image, [], true, false),
    width: image.imageWidth,
    height: image.imageHeight,
    site_id: image.id,
    site_score: image.score,
    site_comments: image.commentsCount,
    site_tags: names,
  };
}
