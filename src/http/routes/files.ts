/**
 * Stored files, served by the service itself in embedded mode (the CDN paths of reference §5.4),
 * from the media storage (a directory or S3, src/media/storage.ts), whichever process stored them:
 *
 *   /img/Y/M/D/ID/NAME.EXT              → images/Y/M/D/ID/NAME.EXT (representations)
 *   /img/view/Y/M/D/ID<anything>.EXT    → images/Y/M/D/ID/full.EXT (text after the id ignored)
 *   /img/download/Y/M/D/ID<anything>.EXT → the same file, as an attachment
 *   /avatars/…, /badge-img/…, /tag-img/… → the areas avatars, badge-img, tag-img
 *
 * A merged or deleted image's files are never served (404), whichever path names them: every
 * representation, the view and download paths, and the `ID-KEY` form.
 *
 * Paths are matched by strict patterns (digits, names of letters, digits, `_`, `-`, `.` that
 * never start with a dot) and checked again by the storage, which refuses any key leaving its area:
 * traversal is impossible twice over. Answers carry the content type, a strong `ETag`,
 * `Last-Modified`, `Accept-Ranges`, and a year of immutable caching; conditional requests get 304,
 * single byte ranges 206, unsatisfiable ranges 416. Multi-range requests get the whole file.
 */
import { Readable } from 'node:stream';
import { Hono } from 'hono';
import { isImageHidden } from '../../contexts/images/hidden.js';
import { StorageKeyError, type MediaStorage, type OpenedFile, type StoredFileStat } from '../../media/storage.js';
import type { AppContext, AppEnv } from '../env/context.js';
import { errorResponse, notFound } from '../answers/errors.js';
import { etagMatches } from '../middleware/cache.js';
import { liveCaches } from '../read-caches.js';

export const FILE_CACHE_CONTROL = 'public, max-age=31536000, immutable';

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  svg: 'image/svg+xml',
  webm: 'video/webm',
  mp4: 'video/mp4',
  webp: 'image/webp',
};

export function contentTypeFor(ext: string): string {
  return CONTENT_TYPES[ext.toLowerCase()] ?? 'application/octet-stream';
}

const REPRESENTATION = /^\/img\/(\d{4}\/\d{1,2}\/\d{1,2})\/(\d{1,10}(?:-[A-Za-z0-9]{1,64})?)\/([A-Za-z0-9_]{1,64})\.([A-Za-z0-9]{1,8})$/;
const PRETTY = /^\/img\/(view|download)\/(\d{4}\/\d{1,2}\/\d{1,2})\/(\d{1,10})(?:[^/\d][^/]{0,400})?\.([A-Za-z0-9]{1,8})$/;
const ASSET = /^\/(avatars|badge-img|tag-img)\/((?:[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}\/){0,8}[A-Za-z0-9_-][A-Za-z0-9._-]{0,127})$/;

/** Where a public file path is stored, or undefined for anything that is not a file path. */
export function resolveFilePath(
  path: string,
): { root: 'images' | 'avatars' | 'badge-img' | 'tag-img'; key: string; download: boolean; ext: string; imageId?: number } | undefined {
  let m = REPRESENTATION.exec(path);
  if (m) {
    const imageId = Number.parseInt(m[2]!, 10);
    return { root: 'images', key: `${m[1]}/${m[2]}/${m[3]}.${m[4]!.toLowerCase()}`, download: false, ext: m[4]!.toLowerCase(), imageId };
  }
  m = PRETTY.exec(path);
  if (m) {
    const ext = m[4]!.toLowerCase();
    return { root: 'images', key: `${m[2]}/${m[3]}/full.${ext}`, download: m[1] === 'download', ext, imageId: Number(m[3]) };
  }
  m = ASSET.exec(path);
  if (m) {
    const root = m[1] as 'avatars' | 'badge-img' | 'tag-img';
    const ext = /\.([A-Za-z0-9]{1,8})$/.exec(m[2]!)?.[1] ?? '';
    return { root, key: m[2]!, download: false, ext };
  }
  return undefined;
}

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

async function serveFile(c: AppContext, store: MediaStorage, key: string, ext: string, downloadName?: string): Promise<Response> {
  let opened: OpenedFile | null;
  try {
    opened = await store.open(key);
  } catch (err) {
    if (err instanceof StorageKeyError) return notFound(c);
    throw err;
  }
  if (!opened) return notFound(c);
  const own: Record<string, string> = {
    'Content-Type': contentTypeFor(ext),
    // SVG files are documents: never let one run script on this origin.
    'Content-Security-Policy': "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox",
  };
  if (downloadName) own['Content-Disposition'] = `attachment; filename="${downloadName}"`;
  return openedFileResponse(c, opened, own);
}

/**
 * Whether an image's files are withheld (it is merged or deleted): from the app's memory of hidden
 * images while changes can be heard, else from PostgreSQL (render/hidden-image-ids.ts).
 */
function filesWithheld(c: AppContext, imageId: number): Promise<boolean> {
  const { db, caches } = c.get('deps');
  return caches ? caches.hiddenImages.isHidden(db, imageId, liveCaches(caches) !== null) : isImageHidden(db, imageId);
}

export function fileRoutes(storage: MediaStorage): Hono<AppEnv> {
  const stores = {
    images: storage.area('images'),
    avatars: storage.area('avatars'),
    'badge-img': storage.area('badge-img'),
    'tag-img': storage.area('tag-img'),
  };
  const app = new Hono<AppEnv>();
  const handler = async (c: AppContext) => {
    const target = resolveFilePath(c.req.path);
    if (!target) return notFound(c);
    if (target.imageId !== undefined && (await filesWithheld(c, target.imageId))) return notFound(c);
    const downloadName = target.download ? c.req.path.slice(c.req.path.lastIndexOf('/') + 1).replace(/[^A-Za-z0-9_.+-]/g, '') : undefined;
    return serveFile(c, stores[target.root], target.key, target.ext, downloadName);
  };
  app.get('/img/*', handler);
  app.get('/avatars/*', handler);
  app.get('/badge-img/*', handler);
  app.get('/tag-img/*', handler);
  return app;
}
