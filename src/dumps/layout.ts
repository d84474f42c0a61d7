/**
 * The layout of the public data dumps in the `dumps` area of the media storage (a directory or a
 * bucket, src/media/storage.ts), shared by the writer, the reader and the routes.
 *
 *   dumps/
 *     latest.json                 {"name": "2025-06-01", ...}: the newest complete dump
 *     2025-06-01/
 *       users.jsonl.gz            one record per line, in the import format (the API's shapes)
 *       tags.jsonl.gz … filters.jsonl.gz
 *       board.json                featured_image_id and the dump time
 *       manifest.json             every file above with its size, record count and SHA-256
 *       SHA256SUMS                `sha256sum -c` input for every file above and the manifest
 *
 * A dump only ever appears complete: it is written to a local staging directory first, and its
 * manifest, by which readers know a dump, is stored after every other file.
 */
import { z } from 'zod';
import type { MediaStorage } from '../media/storage.js';

/** The resource files of a dump, in the order the importer checks and writes them. */
export const DUMP_RESOURCES = ['users', 'tags', 'images', 'comments', 'forums', 'topics', 'posts', 'galleries', 'filters'] as const;
export type DumpResource = (typeof DUMP_RESOURCES)[number];

export const BOARD_FILE = 'board.json';
export const MANIFEST_FILE = 'manifest.json';
export const SUMS_FILE = 'SHA256SUMS';
export const LATEST_FILE = 'latest.json';

export const DUMP_FORMAT = 'tagwise-dump';
export const DUMP_FORMAT_VERSION = 1;

/** Dated dump directories: `YYYY-MM-DD` (the UTC day of the dump). */
export const DUMP_NAME = /^\d{4}-\d{2}-\d{2}$/;
/** Directories being written, or left behind by a run that died. */
export const TEMP_PREFIX = '.tmp-';

export const resourceFile = (resource: DumpResource): string => `${resource}.jsonl.gz`;

/** Every file name a dump directory may hold: nothing else is ever served or read. */
export const DUMP_FILES: readonly string[] = [...DUMP_RESOURCES.map(resourceFile), BOARD_FILE, MANIFEST_FILE, SUMS_FILE];

export function isDumpFile(name: string): boolean {
  return DUMP_FILES.includes(name);
}

/** The name of the dump taken at `at`: its UTC day. */
export const dumpName = (at: Date): string => at.toISOString().slice(0, 10);

export function contentTypeOf(file: string): string {
  if (file.endsWith('.gz')) return 'application/gzip';
  if (file.endsWith('.json')) return 'application/json';
  return 'text/plain; charset=utf-8';
}

const manifestFileSchema = z.object({
  name: z.string().refine(isDumpFile, 'not a dump file name'),
  /** The resource of a `.jsonl.gz` file, or `board`. */
  resource: z.string(),
  bytes: z.number().int().min(0),
  records: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const manifestSchema = z.object({
  format: z.literal(DUMP_FORMAT),
  version: z.number().int(),
  name: z.string().regex(DUMP_NAME),
  created_at: z.string(),
  site_name: z.string(),
  base_url: z.string(),
  files: z.array(manifestFileSchema),
});

export type ManifestFile = z.infer<typeof manifestFileSchema>;
export type Manifest = z.infer<typeof manifestSchema>;

export const latestSchema = z.object({ name: z.string().regex(DUMP_NAME), created_at: z.string() });
export type Latest = z.infer<typeof latestSchema>;

async function readJson(storage: MediaStorage, key: string): Promise<unknown> {
  const bytes = await storage.get(key);
  if (!bytes) return undefined;
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    if (err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/** The manifest of one dump (a storage holding its files), or null when it has none (or an unreadable one). */
export async function readManifest(dump: MediaStorage): Promise<Manifest | null> {
  const parsed = manifestSchema.safeParse(await readJson(dump, MANIFEST_FILE));
  return parsed.success ? parsed.data : null;
}

/** The `latest.json` pointer of a dumps root, or null. */
export async function readLatest(root: MediaStorage): Promise<Latest | null> {
  const parsed = latestSchema.safeParse(await readJson(root, LATEST_FILE));
  return parsed.success ? parsed.data : null;
}

/** Names of the dated dumps under a root (complete or not), newest first. */
export async function listDumpNames(root: MediaStorage): Promise<string[]> {
  const names = new Set<string>();
  for await (const object of root.list()) {
    const first = object.key.slice(0, object.key.indexOf('/'));
    if (DUMP_NAME.test(first)) names.add(first);
  }
  return [...names].sort().reverse();
}

/** The complete dumps under a root (those with a valid manifest), newest first. */
export async function listDumps(root: MediaStorage): Promise<Array<{ name: string; manifest: Manifest }>> {
  const out: Array<{ name: string; manifest: Manifest }> = [];
  for (const name of await listDumpNames(root)) {
    const manifest = await readManifest(root.area(name));
    if (manifest && manifest.name === name) out.push({ name, manifest });
  }
  return out;
}
