/**
 * The pixel limit applied to an image while it streams in (an upload's download, a reverse
 * search's file): as soon as the first bytes declare the size (declared-size.ts), an image over the
 * limit is refused with the errors the full analysis would give it (`image_width`/`image_height`,
 * or the reference's "too large to process"), so a pixel bomb costs a few dozen bytes of reading
 * instead of its whole body, a sniff and a header parse. A size the header does not give, or
 * gives as zero, is left to the full analysis.
 */
import { dimensionError } from './analyze.js';
import { MAX_IMAGE_PIXELS, pixelLimitError } from './decode-budget.js';
import { DeclaredSizeReader } from './declared-size.js';

export class IntakeGuard {
  readonly #reader = new DeclaredSizeReader();

  constructor(private readonly maxPixels = MAX_IMAGE_PIXELS) {}

  /** Feed the next chunk; throws the MediaError of an image declared over the limit. */
  push(chunk: Uint8Array): void {
    if (this.#reader.answer !== undefined) return;
    const size = this.#reader.push(chunk);
    if (!size || !(size.width > 0 && size.height > 0)) return;
    const problem = dimensionError(size.width, size.height) ?? pixelLimitError(size.width, size.height, this.maxPixels);
    if (problem) throw problem;
  }
}
