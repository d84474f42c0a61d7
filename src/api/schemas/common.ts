/**
 * Building blocks of the response schemas: datetimes, URLs, ids and counters as the views write
 * them, and the error bodies every route shares.
 *
 * Components carry `.meta({ id, description })`; the id is the component name of the OpenAPI
 * document (openapi/document.ts) and nothing else reads it.
 */
import { z } from 'zod';
import { INT32_MAX } from '../../db/int32.js';

/** RFC 3339 in UTC at second precision, always ending in `Z` (`2024-05-01T12:00:00Z`). */
export const datetime = () => z.iso.datetime({ precision: 0 });

/** An absolute http(s) URL. */
export const httpUrl = () => z.url({ protocol: /^https?$/ }).meta({ pattern: '^https?://' });

/** An absolute https URL. */
export const httpsUrl = () => z.url({ protocol: /^https$/ }).meta({ pattern: '^https://' });

/** A record id (PostgreSQL `integer`, always positive). */
export const id = () => z.int().min(1).max(INT32_MAX);

/** A counter that cannot go below zero. */
export const count = () => z.int().min(0);

/** `{"error": "<message>"}`: every error answer except failed submissions. */
export const ErrorBody = z
  .strictObject({
    error: z.string().meta({ description: 'What went wrong, for humans. `Not found` for unknown ids; search syntax errors carry the parser message.' }),
  })
  .meta({ id: 'Error', description: 'The body of an error answer.' });

const offset = z.int().min(0);

/** 400 for a search query that does not compile: the reference's body, then where the problem is. */
export const QueryErrorBody = z
  .strictObject({
    error: z.string().meta({ description: 'The parser message, in the reference wording.' }),
    position: z
      .strictObject({
        offset: offset.meta({ description: 'UTF-16 offset into the query (0-based).' }),
        line: z.int().min(1).meta({ description: 'Line, 1-based.' }),
        column: z.int().min(1).meta({ description: 'Column in UTF-16 code units, 1-based.' }),
      })
      .optional()
      .meta({ description: 'Where the problem is; absent when `q` is not a single string.' }),
    excerpt: z
      .strictObject({
        text: z.string().meta({ description: 'The query around the problem (up to 24 characters on each side).' }),
        at: offset.meta({ description: 'Offset of the problem within `text`.' }),
      })
      .optional()
      .meta({ description: 'The text around the problem, to show it underlined.' }),
  })
  .meta({ id: 'QueryError', description: 'The body of a 400 answer to a search query that does not compile.' });

/** 400 for a filter's complex expression that does not compile: which one, and where in the written text. */
export const FilterQueryErrorBody = z
  .strictObject({
    ...QueryErrorBody.shape,
    parameter: z.enum(['hidden_complex', 'spoilered_complex']).meta({ description: 'The expression with the problem.' }),
  })
  .meta({ id: 'FilterQueryError', description: 'The body of a 400 answer to a filter expression that does not compile.' });

/** 403 for a banned user or address (submissions, and requests refused by the limiter). */
export const BanErrorBody = z
  .strictObject({
    error: z.string().meta({ description: 'The ban, for humans: until when and why.' }),
    reason: z.string().meta({ description: 'Why the caller is banned.' }),
    expires_at: datetime().nullable().meta({ description: 'When the ban ends; null for a permanent ban.' }),
  })
  .meta({ id: 'BanError', description: 'The body of a 403 answer to a banned user or address.' });

const messages = (description: string) => z.array(z.string()).optional().meta({ description });

/**
 * The per-field messages of a failed submission (spec "Image errors response"). Every field is
 * optional; fields beyond the spec's list (`url`, `description`, `source_url`, …) name request
 * fields of the wrong type or value; `sources` may list one object per source, as Ecto nests them.
 */
export const ImageErrors = z
  .object({
    image: messages('Errors in the submitted image (also download failures of `url`).'),
    image_aspect_ratio: messages('Errors in the submitted image.'),
    image_format: messages('The image is of an unsupported format.'),
    image_height: messages('Errors in the submitted image.'),
    image_width: messages('Errors in the submitted image.'),
    image_size: messages('Usually: the image is too large.'),
    image_is_animated: messages('Errors in the submitted image.'),
    image_mime_type: messages('Errors in the submitted image.'),
    image_orig_sha512_hash: messages(
      'Errors in the submitted image; a message saying the value has already been taken means the image already exists.',
    ),
    image_sha512_hash: messages('Errors in the submitted image.'),
    tag_input: messages('Errors in the tags.'),
    sources: z
      .array(z.union([z.string(), z.record(z.string(), z.array(z.string()))]))
      .optional()
      .meta({ description: 'Errors in `sources`: a message (too many), or one object per source, `{}` when it is valid and `{"source": [messages]}` when not.' }),
    uploaded_image: messages('Errors in the submitted image.'),
  })
  .catchall(z.array(z.string()))
  .meta({ id: 'ImageErrors', description: 'Messages per field of a failed submission; each present field is a list of strings.' });

export const ImageErrorsBody = z
  .strictObject({ errors: ImageErrors })
  .meta({ id: 'ImageErrorsResponse', description: 'The body of a submission that failed validation or processing.' });
