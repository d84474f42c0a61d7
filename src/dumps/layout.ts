/**
 * The layout of the public data dumps on disk, shared by the writer, the reader and the routes.
 *
 *   DATA_DIR/dumps/
 *     latest.json                 {"name": "2025-06-01", ...}: the newest complete dump
 *     2025-06-01/
 *       users.jsonl.gz            one record per line, in the import format (the API's shapes)
 *       tags.jsonl.gz … filters.jsonl.gz
 *       board.json                featured_image_id and the dump time
 *       manifest.json             every file above with its size, record count and SHA-256
 *       SHA256SUMS                `sha256sum -c` input for every file above and the manifest
 *
 * A dump directory only ever appears complete: it is written under a `.tmp-` name beside the
 * others and renamed into place.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

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

/** The dumps root of a data directory. */
export const dumpsRoot = (dataDir: string): string => join(dataDir, 'dumps');

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

async function readJson(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' || err instanceof SyntaxError) return undefined;
    throw err;
  }
}

/** The manifest of a dump directory, or null when it has none (or an unreadable one). */
export async function readManifest(dir: string): Promise<Manifest | null> {
  const parsed = manifestSchema.safeParse(await readJson(join(dir, MANIFEST_FILE)));
  return parsed.success ? parsed.data : null;
}

/** The `latest.json` pointer of a dumps root, or null. */
export async function readLatest(root: string): Promise<Latest | null> {
  const parsed = latestSchema.safeParse(await readJson(join(root, LATEST_FILE)));
  return parsed.success ? parsed.data : null;
}

/** Names of the dated dump directories under a root, newest first. */
export async function listDumpNames(root: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return entries
    .filter((e) => e.isDirectory() && DUMP_NAME.test(e.name))
    .map((e) => e.name)
    .sort()
    .reverse();
}

/** The complete dumps under a root (those with a valid manifest), newest first. */
export async function listDumps(root: string): Promise<Array<{ name: string; manifest: Manifest }>> {
  const out: Array<{ name: string; manifest: Manifest }> = [];
  for (const name of await listDumpNames(root)) {
    const manifest = await readManifest(join(root, name));
    if (manifest && manifest.name === name) out.push({ name, manifest });
  }
  return out;
}
