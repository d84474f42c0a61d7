/**
 * The image object (spec "Image response", reference §5.4).
 *
 * Deliberate choices, where the spec and the reference differ or are silent:
 * - `duration` is the stored duration for animated images and the constant 0.04 otherwise (spec).
 * - Merged and deleted images (`hidden_from_users`) are the reference's stub in every view: id,
 *   times, `deletion_reason` (deleted) or `duplicate_of` (merged), `hidden_from_users: true`, and
 *   no `spoilered`; nothing of the file, its tags, uploader or description is shown.
 * - All URLs are absolute under the CDN root; tags and `tag_ids` are in display order.
 * - `orig_size` and `hides` are kept from the reference's body in addition to the spec's table.
 */
import type { z } from 'zod';
import type { Config } from '../../config.js';
import { wilsonScore } from '../../contexts/search/documents/images-documents.js';
import type { HiddenImage, Image } from '../schemas/resources.js';
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

/** A visible image's JSON. */
export type VisibleImageJson = z.output<typeof Image>;
/** A merged or deleted image's stub. */
export type HiddenImageJson = z.output<typeof HiddenImage>;
/** An image as every view shows it: whole, or the stub of a merged or deleted one. */
export type ImageJson = VisibleImageJson | HiddenImageJson;

/** What the stub of a merged or deleted image is made of. */
export type HiddenImageInput = Pick<ImageRow, 'id' | 'createdAt' | 'updatedAt' | 'firstSeenAt' | 'deletionReason' | 'duplicateId'>;

/**
 * The stub of a merged (`duplicate_of` set) or deleted (`deletion_reason`) image, reference §5.4.
 * A merged image has no deletion reason of its own to show: it points at its target.
 */
export function hiddenImageView(image: HiddenImageInput): HiddenImageJson {
  const merged = image.duplicateId !== null;
  return {
    id: image.id,
    created_at: formatTime(image.createdAt),
    updated_at: formatTime(image.updatedAt),
    first_seen_at: formatTime(image.firstSeenAt),
    deletion_reason: merged ? null : image.deletionReason,
    duplicate_of: image.duplicateId,
    hidden_from_users: true,
  };
}

/** Whether the uploader is shown: there is a user and the upload is not anonymous. */
export function showsUploader(image: Pick<ImageRow, 'userId' | 'anonymous'>): boolean {
  return image.userId !== null && !image.anonymous;
}

/** An image as every view shows it: the stub when it is hidden from users, else whole. */
export function imageView(config: Pick<Config, 'cdnUrl'>, input: ImageViewInput): ImageJson {
  return input.image.hiddenFromUsers ? hiddenImageView(input.image) : visibleImageView(config, input);
}

/** A visible image whole; its merge and deletion columns (left from an earlier state) are not shown. */
export function visibleImageView(config: Pick<Config, 'cdnUrl'>, input: ImageViewInput): VisibleImageJson {
  const { image, tags, sources } = input;
  const slugs = tags.map((t) => t.slug);
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
    deletion_reason: null,
    duplicate_of: null,
    hidden_from_users: false,
  };
}
