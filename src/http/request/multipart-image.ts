/**
 * Reading a multipart body that carries one image file, as it streams in (`@fastify/busboy`, the
 * maintained streaming parser that undici itself builds on): its short fields, and the file's
 * bytes passed through an IntakeGuard, so that an image whose first bytes declare too many pixels
 * is refused before the rest of the body is read, parsed or buffered. The unread rest is discarded
 * as it arrives (the connection stays usable and the client, still sending, gets the answer
 * instead of a reset).
 *
 * Limits: the file at most `maxFileBytes`, fields at most 8 KiB each and 16 in all, 4 files and 32
 * parts; beyond the file limit (or a declared Content-Length beyond it) the answer is `too_large`,
 * and other files are read past unheld.
 */
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Busboy, type BusboyInstance } from '@fastify/busboy';
import { isMediaError, type MediaError } from '../../media/errors.js';
import { IntakeGuard } from '../../media/intake-guard.js';
import type { AppContext } from '../env/context.js';

export type MultipartImage =
  | { kind: 'read'; fields: Record<string, string>; file: Buffer | undefined }
  | { kind: 'refused'; error: MediaError }
  | { kind: 'too_large' }
  | { kind: 'malformed' };

export interface MultipartImageOptions {
  /** Names of the part that carries the image; the first such part is read. */
  fileFields: readonly string[];
  maxFileBytes: number;
}

/** Room for the fields and part headers beside the file. */
const ENVELOPE_BYTES = 64 * 1024;
const MAX_FIELD_BYTES = 8 * 1024;

/** The request's body as a Node stream: the socket's own message under the Node server, else the Request's body. */
function bodySource(c: AppContext): Readable | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableEnded) return incoming;
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>) : undefined;
}

export async function readMultipartImage(c: AppContext, options: MultipartImageOptions): Promise<MultipartImage> {
  const declared = Number(c.req.header('content-length') ?? NaN);
  if (declared > options.maxFileBytes + ENVELOPE_BYTES) return { kind: 'too_large' };
  const source = bodySource(c);
  if (!source) return { kind: 'read', fields: {}, file: undefined };
  let parser: BusboyInstance;
  try {
    parser = Busboy({
      headers: { 'content-type': c.req.header('content-type') ?? '' },
      limits: { fileSize: options.maxFileBytes, fieldSize: MAX_FIELD_BYTES, fields: 16, files: 4, parts: 32 },
    });
  } catch {
    return { kind: 'malformed' }; // no boundary
  }

  return await new Promise<MultipartImage>((resolve) => {
    let settled = false;
    const fields: Record<string, string> = {};
    let file: Buffer | undefined;
    const settle = (outcome: MultipartImage) => {
      if (settled) return;
      settled = true;
      if (outcome.kind !== 'read') {
        // Stop parsing; what the client still sends is read and dropped.
        source.unpipe(parser);
        source.on('error', () => {});
        source.resume();
      }
      resolve(outcome);
    };
    parser.on('field', (name, value) => {
      fields[name] ??= value;
    });
    parser.on('file', (name, stream) => {
      if (file !== undefined || !options.fileFields.includes(name)) {
        stream.resume();
        return;
      }
      const guard = new IntakeGuard();
      const chunks: Buffer[] = [];
      file = Buffer.alloc(0);
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        try {
          guard.push(chunk);
        } catch (error) {
          if (!isMediaError(error)) throw error;
          settle({ kind: 'refused', error });
          return;
        }
        chunks.push(chunk);
      });
      stream.on('limit', () => settle({ kind: 'too_large' }));
      stream.on('end', () => {
        file = Buffer.concat(chunks);
      });
    });
    parser.on('finish', () => settle({ kind: 'read', fields, file: file && file.length > 0 ? file : undefined }));
    parser.on('error', () => settle({ kind: 'malformed' }));
    // A client gone before the end of its body: nothing usable came.
    source.on('error', () => settle({ kind: 'malformed' }));
    source.on('aborted', () => settle({ kind: 'malformed' }));
    source.pipe(parser);
  });
}
