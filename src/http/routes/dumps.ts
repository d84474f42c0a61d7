/**
 * The public data dumps (src/dumps/), served from the `dumps` area of the media storage (a
 * directory or a bucket) outside the JSON API:
 *
 *   GET /dumps/                  the dumps available, newest first, with every file's size,
 *                                record count, SHA-256 and URL (`latest` names the newest)
 *   GET /dumps/latest.json       the pointer to the newest dump
 *   GET /dumps/<date>/           one dump's entry of the index
 *   GET /dumps/<date>/<file>     a file: `application/gzip` (.jsonl.gz), `application/json`
 *                                (board.json, manifest.json) or `text/plain` (SHA256SUMS)
 *   GET /dumps/latest/<file>     302 to the newest dump's file
 *
 * Only names of the fixed set a dump holds are ever opened (`YYYY-MM-DD` directories, the files
 * listed in layout.ts), so no path can reach anything else. Files carry `Content-Length`, a strong
 * `ETag`, `Last-Modified`, and `Accept-Ranges`; a single byte range is answered 206, an
 * unsatisfiable one 416, a matching `If-None-Match` 304. A dated dump never changes, so its files
 * are cached for a year; the index and pointer for five minutes. Anything else is a 404 JSON error.
 */
import { Hono } from 'hono';
import type { Config } from '../../config.js';
import {
  DUMP_NAME,
  MANIFEST_FILE,
  SUMS_FILE,
  contentTypeOf,
  isDumpFile,
  listDumps,
  readLatest,
  readManifest,
  type Manifest,
} from '../../dumps/layout.js';
import type { MediaStorage } from '../../media/storage.js';
import type { AppContext, AppEnv } from '../context.js';
import { notFound } from '../errors.js';
import { nameRoute } from '../route-name.js';
import { cacheFor } from '../middleware/cache.js';
import { openedFileResponse } from '../render/file-response.js';

/** How long the index and the latest pointer may be cached: a new dump appears once a day. */
const INDEX_MAX_AGE = 300;

export interface DumpFileJson {
  name: string;
  resource: string | null;
  bytes: number;
  records: number | null;
  sha256: string | null;
  url: string;
}

export interface DumpJson {
  name: string;
  created_at: string;
  url: string;
  files: DumpFileJson[];
}

async function sizeOf(dump: MediaStorage, file: string): Promise<number> {
  return (await dump.stat(file))?.size ?? 0;
}

async function dumpJson(config: Pick<Config, 'baseUrl'>, root: MediaStorage, name: string, manifest: Manifest): Promise<DumpJson> {
  const url = `${config.baseUrl}/dumps/${name}/`;
  const files: DumpFileJson[] = manifest.files.map((f) => ({ name: f.name, resource: f.resource, bytes: f.bytes, records: f.records, sha256: f.sha256, url: url + f.name }));
  // The manifest and the checksum list describe the others; they are listed without checksums.
  for (const extra of [MANIFEST_FILE, SUMS_FILE]) {
    files.push({ name: extra, resource: null, bytes: await sizeOf(root.area(name), extra), records: null, sha256: null, url: url + extra });
  }
  return { name, created_at: manifest.created_at, url, files };
}

async function serveDumpFile(c: AppContext, dump: MediaStorage, file: string): Promise<Response> {
  const opened = await dump.open(file);
  if (!opened) return notFound(c);
  return openedFileResponse(c, opened, { 'Content-Type': contentTypeOf(file) });
}

export function dumpRoutes(config: Pick<Config, 'baseUrl'>, root: MediaStorage): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  const index = async (c: AppContext) => {
    const dumps = await listDumps(root);
    const latest = await readLatest(root);
    cacheFor(c, INDEX_MAX_AGE);
    return c.json({
      latest: latest && dumps.some((d) => d.name === latest.name) ? latest.name : (dumps[0]?.name ?? null),
      dumps: await Promise.all(dumps.map((d) => dumpJson(config, root, d.name, d.manifest))),
    });
  };
  app.get('/dumps', index);
  app.get('/dumps/', index);

  // `latest.json` and `latest/` share the places of a dump's name: one route for each place,
  // since Hono's RegExpRouter cannot hold a fixed name beside a parameter in the same place
  const latestPointer = async (c: AppContext) => {
    const latest = await readLatest(root);
    if (!latest) return notFound(c);
    cacheFor(c, INDEX_MAX_AGE);
    return c.json({ ...latest, url: `${config.baseUrl}/dumps/${latest.name}/` });
  };

  const latestFile = async (c: AppContext, file: string) => {
    const latest = await readLatest(root);
    if (!latest || !isDumpFile(file)) return notFound(c);
    c.header('Cache-Control', `public, max-age=${INDEX_MAX_AGE}`);
    return c.redirect(`${config.baseUrl}/dumps/${latest.name}/${file}`, 302);
  };

  const oneDump = async (c: AppContext) => {
    const name = c.req.param('name') ?? '';
    if (!DUMP_NAME.test(name)) return notFound(c);
    const manifest = await readManifest(root.area(name));
    if (!manifest || manifest.name !== name) return notFound(c);
    cacheFor(c, INDEX_MAX_AGE);
    return c.json({ dump: await dumpJson(config, root, name, manifest) });
  };
  app.get('/dumps/:name', (c) => {
    if (c.req.param('name') !== 'latest.json') return oneDump(c);
    nameRoute(c, 'name', 'latest.json');
    return latestPointer(c);
  });
  app.get('/dumps/:name/', oneDump);

  app.get('/dumps/:name/:file', async (c) => {
    const name = c.req.param('name');
    const file = c.req.param('file');
    if (name === 'latest') {
      nameRoute(c, 'name', 'latest');
      return latestFile(c, file);
    }
    // Fixed names only: a date and one of a dump's own files.
    if (!DUMP_NAME.test(name) || !isDumpFile(file)) return notFound(c);
    return serveDumpFile(c, root.area(name), file);
  });

  return app;
}
