/**
 * Reading a dump back into the import data object (`importBoard(db, await readDump(dir))`).
 *
 * `path` may be a dump directory, a dumps root (its `latest.json` is followed), or one
 * `<resource>.jsonl.gz` file. When the directory has a manifest, every file it lists is checked
 * against its size, SHA-256 and record count while it is read, and a dump that does not match is
 * refused; without a manifest, the resource files present are read as they are.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { pipeline, Transform } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import { DirectoryStorage } from '../media/storage-directory.js';
import { BOARD_FILE, DUMP_RESOURCES, readLatest, readManifest, resourceFile, type DumpResource, type Manifest } from './layout.js';

/** The dump cannot be read: missing, damaged, or not a dump. */
export class DumpReadError extends Error {
  override name = 'DumpReadError';
}

/** What `importBoard` takes: the resource arrays present and the featured image. */
export type DumpData = Partial<Record<DumpResource, unknown[]>> & { featured_image_id?: number | null };

export interface ReadDumpOptions {
  /** Check files against the manifest (default true). */
  verify?: boolean;
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new DumpReadError(`${path} does not exist`);
    throw err;
  }
}

async function fileExists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** The records of one `.jsonl.gz` file, with its byte count and SHA-256 taken on the way. */
async function readJsonLines(path: string): Promise<{ records: unknown[]; bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
  });
  // An error anywhere (unreadable file, damaged gzip) ends the iteration below with it.
  const text = pipeline(createReadStream(path), tap, createGunzip(), () => {});
  const decoder = new StringDecoder('utf8');
  const records: unknown[] = [];
  let n = 0;
  const parse = (line: string) => {
    n++;
    if (line.trim() === '') return;
    try {
      records.push(JSON.parse(line));
    } catch (err) {
      throw new DumpReadError(`${basename(path)} line ${n}: ${(err as Error).message}`);
    }
  };
  let rest = '';
  try {
    for await (const chunk of text) {
      const lines = (rest + decoder.write(chunk as Buffer)).split('\n');
      rest = lines.pop()!;
      for (const line of lines) parse(line);
    }
    rest += decoder.end();
    if (rest !== '') parse(rest);
  } catch (err) {
    text.destroy();
    if (err instanceof DumpReadError) throw err;
    throw new DumpReadError(`${basename(path)}: ${(err as Error).message}`);
  }
  return { records, bytes, sha256: hash.digest('hex') };
}

function check(manifest: Manifest | null, file: string, found: { bytes: number; sha256: string; records: number }): void {
  const entry = manifest?.files.find((f) => f.name === file);
  if (!manifest) return;
  if (!entry) throw new DumpReadError(`${file} is not listed in the manifest`);
  if (entry.bytes !== found.bytes || entry.sha256 !== found.sha256) throw new DumpReadError(`${file} does not match its checksum in the manifest`);
  if (entry.records !== found.records) throw new DumpReadError(`${file} has ${found.records} records, the manifest says ${entry.records}`);
}

async function readResource(dir: string, resource: DumpResource, manifest: Manifest | null): Promise<unknown[]> {
  const file = resourceFile(resource);
  const { records, bytes, sha256 } = await readJsonLines(join(dir, file));
  check(manifest, file, { bytes, sha256, records: records.length });
  return records;
}

async function readBoard(dir: string, manifest: Manifest | null): Promise<number | null | undefined> {
  const path = join(dir, BOARD_FILE);
  if (!(await fileExists(path))) {
    if (manifest?.files.some((f) => f.name === BOARD_FILE)) throw new DumpReadError(`${BOARD_FILE} is missing`);
    return undefined;
  }
  const bytes = await readFile(path);
  check(manifest, BOARD_FILE, { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), records: 1 });
  let board: unknown;
  try {
    board = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw new DumpReadError(`${BOARD_FILE}: ${(err as Error).message}`);
  }
  const id = (board as { featured_image_id?: unknown } | null)?.featured_image_id;
  if (id === undefined || id === null || typeof id === 'number') return id;
  throw new DumpReadError(`${BOARD_FILE}: featured_image_id must be a number or null`);
}

/** The import data object of a dump (see the module comment for what `path` may be). */
export async function readDump(path: string, options: ReadDumpOptions = {}): Promise<DumpData> {
  const verify = options.verify ?? true;
  if (!(await isDirectory(path))) {
    const resource = DUMP_RESOURCES.find((r) => basename(path) === resourceFile(r));
    if (!resource) throw new DumpReadError(`${basename(path)} is not a dump file (expected one of ${DUMP_RESOURCES.map(resourceFile).join(', ')})`);
    const manifest = verify ? await readManifest(new DirectoryStorage(dirname(path))) : null;
    return { [resource]: await readResource(dirname(path), resource, manifest) };
  }

  let dir = path;
  let manifest = await readManifest(new DirectoryStorage(dir));
  if (!manifest) {
    const latest = await readLatest(new DirectoryStorage(dir));
    if (latest) {
      dir = join(dir, latest.name);
      manifest = await readManifest(new DirectoryStorage(dir));
    }
  }
  const checked = verify ? manifest : null;
  const data: DumpData = {};
  let found = 0;
  for (const resource of DUMP_RESOURCES) {
    const file = resourceFile(resource);
    if (!(await fileExists(join(dir, file)))) {
      if (manifest?.files.some((f) => f.name === file)) throw new DumpReadError(`${file} is missing`);
      continue;
    }
    data[resource] = await readResource(dir, resource, checked);
    found++;
  }
  const featured = await readBoard(dir, checked);
  if (found === 0 && featured === undefined) throw new DumpReadError(`${path} holds no dump files`);
  if (featured !== undefined) data.featured_image_id = featured;
  return data;
}
