/**
 * A stored file as an HTTP answer, for the file routes and the dumps alike: a strong `ETag`,
 * `Last-Modified`, `Accept-Ranges` and a year of immutable caching; conditional requests get 304,
 * single byte ranges 206, unsatisfiable ranges 416, multi-range requests the whole file.
 */
import { Readable } from 'node:stream';
import type { OpenedFile, StoredFileStat } from '../../media/storage.js';
import type { AppContext } from '../context.js';
import { errorResponse, notFound } from '../errors.js';
import { etagMatches } from '../middleware/cache.js';

const FILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export type ByteRange = { start: number; end: number };

/**
 * One `Range: bytes=…` header against a size: a range, `'unsatisfiable'`, or undefined to serve
 * the whole file (no header, another unit, several ranges, or a malformed header).
 */
export function parseRange(header: string | undefined, size: number): ByteRange | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return undefined;
  const [, first, last] = m;
  if (first === '' && last === '') return undefined;
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(size - suffix, 0), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return undefined; // invalid: ignore the header
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

export function fileEtag(stat: StoredFileStat): string {
  return `"${stat.size.toString(16)}-${Math.floor(stat.mtime.getTime()).toString(16)}"`;
}

function notModifiedSince(header: string | undefined, mtime: Date): boolean {
  if (!header) return false;
  const since = Date.parse(header);
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

/**
 * The answer to a GET or HEAD of a file of this size and time: 304 when the client's copy is fresh
 * (If-None-Match, else If-Modified-Since), 416 for a range past its end, else 200, or 206 for one
 * byte range whose validator still holds (If-Range), with the bytes `read` streams (404 when it
 * finds the file gone since its `stat`). `headers` are the file's own (its Content-Type first),
 * added to the caching and range headers every file has.
 */
export async function fileResponse(
  c: AppContext,
  stat: StoredFileStat,
  own: Record<string, string>,
  read: (start: number, end: number) => Readable | null | Promise<Readable | null>,
): Promise<Response> {
  const etag = fileEtag(stat);
  const lastModified = stat.mtime.toUTCString();
  const headers = new Headers({
    ...own,
    'Accept-Ranges': 'bytes',
    'Cache-Control': FILE_CACHE_CONTROL,
    ETag: etag,
    'Last-Modified': lastModified,
    'X-Content-Type-Options': 'nosniff',
  });

  const ifNoneMatch = c.req.header('If-None-Match');
  const fresh = ifNoneMatch !== undefined ? etagMatches(ifNoneMatch, etag) : notModifiedSince(c.req.header('If-Modified-Since'), stat.mtime);
  if (fresh) {
    headers.delete('Content-Type');
    return new Response(null, { status: 304, headers });
  }

  let range = parseRange(c.req.header('Range'), stat.size);
  const ifRange = c.req.header('If-Range');
  if (range !== undefined && ifRange !== undefined && ifRange.trim() !== etag && ifRange.trim() !== lastModified) {
    range = undefined; // the client's copy is stale: send the whole new file
  }
  if (range === 'unsatisfiable') {
    const res = errorResponse(c, 416, 'Range Not Satisfiable');
    res.headers.set('Content-Range', `bytes */${stat.size}`);
    res.headers.set('Cache-Control', 'no-store');
    return res;
  }

  const head = c.req.raw.method === 'HEAD';
  const status = range ? 206 : 200;
  const start = range?.start ?? 0;
  const end = range?.end ?? stat.size - 1;
  const length = stat.size === 0 ? 0 : end - start + 1;
  headers.set('Content-Length', String(length));
  if (range) headers.set('Content-Range', `bytes ${start}-${end}/${stat.size}`);
  if (head || length === 0) return new Response(null, { status, headers });
  const body = await read(start, end);
  if (!body) return notFound(c);
  return new Response(Readable.toWeb(body) as ReadableStream<Uint8Array>, { status, headers });
}

/** `fileResponse` for a file opened in the storage, which is closed unless its bytes are sent. */
export async function openedFileResponse(c: AppContext, opened: OpenedFile, own: Record<string, string>): Promise<Response> {
  let reading = false;
  try {
    return await fileResponse(c, opened.stat, own, (start, end) => {
      reading = true;
      return opened.read({ start, end });
    });
  } finally {
    if (!reading) opened.close();
  }
}
