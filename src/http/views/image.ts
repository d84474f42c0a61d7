/**
 * The image object (spec "Image response", reference §5.4).
 *
 * Deliberate choices, where the spec and the reference differ or are silent:
 * - `duration` is the stored duration for animated images and the constant 0.04 otherwise (spec).
 * - Merged and deleted images are not reduced to the reference's 7-key stub: every field is
 *   present, with `hidden_from_users: true` and `duplicate_of` (merged) or `deletion_reason`
 *   (deleted) set, so that clients mapping every field strictly keep working.
 * - All URLs are absolute under the CDN root; tags and `tag_ids` are in display order.
 * - `orig_size` and `hides` are kept from the reference's body in addition to the spec's table.
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { wilsonScore } from '../../search/indexes/images/document.js';
import type { Image, } from '../schemas/resources.js';
import { formatTime } from './time.js';
import { prettyUrl, representations, } from './urls.js';
import type { ImageRow, ImageTag, Intensities } from '../../contexts/images/types.js';


export interface ImageViewInput {
  image: ImageRow;
  /** In display order. */
  tags: readonly ImageTag[];
  /** In their stored order. */
  sources: readonly string[];
  intensities: Intensities | null;
  /** The uploading user's name, or null when there is none. */
  uploaderName: string | null;
  spoilered: boolean;
}

/** `duration` of a still image (spec: "otherwise the constant .04"). */
export const STILL_DURATION = 0.04;

export type ImageJson = z.output<typeof Image>;

/** Whether the uploader is shown: there is a user and the upload is not anonymous. */
export function showsUploader(image: Pick<ImageRow, 'userId' | 'anonymous'>): boolean {
  return image.userId !== null && !image.anonymous;
}

export function imageView(config: Pick<Config, 'cdnUrl'>, input: ImageViewInput): ImageJson {
  const { image, tags, sources } = input;
  const slugs = tags.map((t) => t.slug);
  const hidden = image.hiddenFromUsers;
  const merged = hidden && image.duplicateId !== null;
  const uploaderShown = showsUploader(image) && input.uploaderName !== null;
  return {
    id: image.id,
    created_at: formatTime(image.createdAt),
    updated_at: formatTime(image.updatedAt),
    first_seen_at: formatTime(image.firstSeenAt),
    width: image.imageWidth,
    height: image.imageHeight,
    mime_type: image.imageMimeType,
    size: image.imageSize,
    orig_size: image.imageOrigSize,
    duration: image.isAnimated ? image.imageDuration : STILL_DURATION,
    animated: image.isAnimated,
    format: image.imageFormat,
    aspect_ratio: image.imageAspectRatio,
    name: image.imageName,
    sha512_hash: image.imageSha512Hash,
    orig_sha512_hash: image.imageOrigSha512Hash,
    tags: tags.map((t) => t.name),
    tag_ids: tags.map((t) => t.id),
    tag_count: tags.length,
    uploader: uploaderShown ? input.uploaderName : null,
    uploader_id: uploaderShown ? image.userId : null,
    wilson_score: wilsonScore(image.upvotesCount, image.downvotesCount),
    intensities: input.intensities,
    score: image.score,
    upvotes: image.upvotesCount,
    downvotes: image.downvotesCount,
    faves: image.favesCount,
    hides: image.hidesCount,
    comment_count: image.commentsCount,
    description: image.description,
    source_url: sources[0] ?? '',
    source_urls: [...sources],
    view_url: prettyUrl(config, image, slugs, false, false),
    representations: representations(config, image, slugs),
    spoilered: input.spoilered,
    thumbnails_generated: image.thumbnailsGenerated,
    processed: image.processed,
    deletion_reason: hidden && !merged ? image.deletionReason : null,
    duplicate_of: merged ? image.duplicateId : null,
    hidden_from_users: hidden,
  };
}
