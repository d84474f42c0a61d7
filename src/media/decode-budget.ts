/**
 * What decoding images may cost: a pixel limit for every submitted or searched image. The
 * sandboxes every decode of a request or a job runs in (killable child processes with a deadline
 * and a memory cap, a bounded number at once) are in sandbox/decodes.ts.
 *
 * The pixel limit: 100,000,000 pixels (width × height), e.g. 10,000 × 10,000 or a 2,000 × 50,000
 * strip. A full decode of that is at most 400 MB (4 bytes a pixel), which with the queue's
 * concurrency keeps the process within its memory. The reference's own rule (see `dimensionError`
 * in analyze.ts) lets through about 268 megapixels; images that large are not what a booru serves
 * as art (its largest representation is 1280 × 1024, `tall` 1024 × 4096), and the rule stays in
 * force below this one.
 */
import { MediaError, type MediaErrorMap } from './errors.js';

export const MAX_IMAGE_PIXELS = 100_000_000;

/**
 * `image_width` and `image_height` errors for an image over the pixel limit, or null. Both fields
 * carry the message: the limit is on their product.
 */
export function pixelLimitError(width: number, height: number, maxPixels = MAX_IMAGE_PIXELS): MediaError | null {
  if (width * height <= maxPixels) return null;
  const message = `must be at most ${maxPixels} pixels (width × height)`;
  const errors: MediaErrorMap = { image_height: [message], image_width: [message] };
  return new MediaError('image', message, { errors });
}
