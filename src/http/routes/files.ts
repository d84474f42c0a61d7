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
 * single byte ranges 206, unsatisfiable ranges 416 (render/file-response.ts). Multi-range requests
 * get the whole file.
 */
import { Hono } from 'hono';
import { isImageHidden } from '../../contexts/images/hidden.js';
import { StorageKeyError, type MediaStorage, type OpenedFile } from '../../media/storage.js';
import type { AppContext, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { liveCaches } from '../../caches/read-caches.js';
import { openedFileResponse } from '../render/file-response.js';

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
 * images while changes can be heard, else from PostgreSQL (src/caches/hidden-image-ids.ts).
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
