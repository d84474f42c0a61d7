/**
 * What decoding images may cost the process: a pixel limit for every submitted or searched image,
 * and one queue that every decode of a request (submissions and reverse searches alike) passes,
 * so that a burst of large images waits or is refused instead of multiplying memory.
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

/** The queue is full: the caller should answer 503 with `Retry-After`. */
export class DecodeQueueFull extends Error {
  override name = 'DecodeQueueFull';
  readonly retryAfterSeconds = 2;
  constructor() {
    super('Too many images are being decoded; retry shortly');
  }
}

export interface DecodeQueueOptions {
  /** Decodes running at once. */
  concurrency: number;
  /** Decodes waiting for a turn; one more is refused with `DecodeQueueFull`. */
  maxWaiting: number;
}

/** A counting semaphore with a bounded waiting room, first come first served. */
export class DecodeQueue {
  #active = 0;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly options: DecodeQueueOptions) {}

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Run `work` when a slot is free; throws `DecodeQueueFull` at once when the room is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.#active >= this.options.concurrency) {
      if (this.#waiting.length >= this.options.maxWaiting) throw new DecodeQueueFull();
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active++;
    }
    try {
      return await work();
    } finally {
      const next = this.#waiting.shift();
      // The slot passes straight to the next waiter, so `active` never drops below the load.
      if (next) next();
      else this.#active--;
    }
  }
}

/**
 * The process's one queue. Two decodes at once (the machines this runs on have few cores, and
 * libvips already uses several threads per decode); eight may wait, each about as long as a decode.
 */
export const decodeQueue = new DecodeQueue({ concurrency: 2, maxWaiting: 8 });
