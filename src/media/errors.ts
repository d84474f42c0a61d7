/**
 * Errors raised while analysing or processing a submitted file.
 *
 * `field` and `message` follow the image-errors table of the reference (philomena.md §8.2 item 4),
 * so a submission endpoint can answer `{"errors": {field: [message]}}` as Philomena does.
 * `errors` is the complete error map the reference produces for the same failure (for instance an
 * unsupported type also makes every other analysed attribute "can't be blank").
 */

export type MediaErrorField = 'image' | 'image_mime_type' | 'image_size' | 'image_name';

export const MEDIA_MESSAGES = {
  corrupt: 'contents corrupt, not recognized, or dimensions are too large to process',
  tooLarge: 'dimensions are too large to process',
  tooCostly: 'took more time or memory to decode than is allowed',
  blank: "can't be blank",
  sizePositive: 'must be greater than 0',
  /** Followed by the limit, as Ecto's `validate_number` words it. */
  sizeAtMost: 'must be less than or equal to',
  nameTooLong: 'should be at most 255 byte(s)',
  webmNeedsFfmpeg: 'WebM support needs ffmpeg (ffprobe and ffmpeg on PATH), which this server does not have',
  invalidMime: (mime: string) => `(${mime}) is invalid`,
} as const;

/** Attributes the reference reports as "can't be blank" when the file could not be analysed at all. */
const ANALYSED_ATTRIBUTES = [
  'image_aspect_ratio',
  'image_duration',
  'image_format',
  'image_height',
  'image_is_animated',
  'image_orig_sha512_hash',
  'image_orig_size',
  'image_sha512_hash',
  'image_size',
  'image_width',
  'uploaded_image',
] as const;

export type MediaErrorMap = Record<string, string[]>;

export class MediaError extends Error {
  override readonly name = 'MediaError';
  readonly field: MediaErrorField;
  /** Every field error the reference would report for this failure, in its order. */
  readonly errors: MediaErrorMap;

  constructor(field: MediaErrorField, message: string, options?: { errors?: MediaErrorMap; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.field = field;
    this.errors = options?.errors ?? { [field]: [message] };
  }

  /** Unreadable contents, zero dimensions, or a decoder failure. */
  static corrupt(cause?: unknown): MediaError {
    return new MediaError('image', MEDIA_MESSAGES.corrupt, { cause });
  }

  /** The pixel-limit rule (or sharp's own limit) refused the dimensions. */
  static tooLarge(cause?: unknown): MediaError {
    return new MediaError('image', MEDIA_MESSAGES.tooLarge, { cause });
  }

  /** The decode passed its deadline or memory (sandbox/pool.ts): a render or frame bomb. */
  static tooCostly(): MediaError {
    return new MediaError('image', MEDIA_MESSAGES.tooCostly);
  }

  /**
   * A sniffed type that is not accepted. The reference then has only the MIME type, so every other
   * analysed attribute is blank and the dimension check fails too.
   */
  static invalidMime(mime: string): MediaError {
    const message = MEDIA_MESSAGES.invalidMime(mime);
    const errors: MediaErrorMap = { image: [MEDIA_MESSAGES.corrupt, MEDIA_MESSAGES.blank] };
    for (const attribute of ANALYSED_ATTRIBUTES) errors[attribute] = [MEDIA_MESSAGES.blank];
    errors.image_mime_type = [message];
    return new MediaError('image_mime_type', message, { errors: sortKeys(errors) });
  }

  static sizeOutOfRange(size: number, max: number): MediaError {
    const message = size <= 0 ? MEDIA_MESSAGES.sizePositive : `${MEDIA_MESSAGES.sizeAtMost} ${max}`;
    return new MediaError('image_size', message);
  }

  /** A WebM upload on a machine without ffprobe/ffmpeg. */
  static webmUnsupported(cause?: unknown): MediaError {
    return new MediaError('image', MEDIA_MESSAGES.webmNeedsFfmpeg, { cause });
  }
}

export function isMediaError(value: unknown): value is MediaError {
  return value instanceof MediaError;
}

function sortKeys(map: MediaErrorMap): MediaErrorMap {
  const sorted: MediaErrorMap = {};
  for (const key of Object.keys(map).sort()) sorted[key] = map[key] ?? [];
  return sorted;
}
