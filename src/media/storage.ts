/**
 * Stored image files under a root directory (`DATA_DIR/images`), keyed as the reference's object
 * storage is: `Y/M/D/<id>/<name>.<ext>` with Y/M/D taken from the image's UTC creation date and
 * **not** zero-padded (philomena.md §5.4, §8.5). Hidden images use `<id>-<key>` as the directory.
 *
 * Keys are relative POSIX paths; anything that could leave the root (`..`, `.`, empty segments,
 * absolute paths, backslashes, NUL) is refused. Writes are atomic: a temporary file in the target
 * directory is renamed over the key.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';

export class StorageKeyError extends Error {
  override readonly name = 'StorageKeyError';
}

export interface StoredFileStat {
  size: number;
  mtime: Date;
}

/** `Y/M/D` of a date in UTC, not zero-padded (`2012/1/2`). */
export function datePath(createdAt: Date): string {
  if (Number.isNaN(createdAt.getTime())) throw new StorageKeyError('invalid date');
  return `${createdAt.getUTCFullYear()}/${createdAt.getUTCMonth() + 1}/${createdAt.getUTCDate()}`;
}

/**
 * `Y/M/D/<id>/<name>.<ext>`. `id` may be `<id>-<hidden key>` for hidden images.
 * Example: `pathFor(new Date('2012-01-02T10:00:00Z'), 42, 'thumb', 'png')` → `2012/1/2/42/thumb.png`.
 */
export function pathFor(createdAt: Date, id: number | string, name: string, ext: string): string {
  const key = `${datePath(createdAt)}/${id}/${name}.${ext}`;
  validateKey(key);
  return key;
}

/** Throws `StorageKeyError` unless `key` is a safe relative path. */
export function validateKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new StorageKeyError('empty storage key');
  if (key.length > 1024) throw new StorageKeyError('storage key too long');
  if (key.includes('\0')) throw new StorageKeyError('storage key contains NUL');
  if (key.includes('\\')) throw new StorageKeyError('storage key contains a backslash');
  if (key.startsWith('/') || /^[A-Za-z]:/.test(key)) throw new StorageKeyError('storage key is absolute');
  for (const segment of key.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') {
      throw new StorageKeyError(`storage key has an invalid segment: ${JSON.stringify(key)}`);
    }
  }
}

export class FileStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** See the module function `pathFor`. */
  pathFor(createdAt: Date, id: number | string, name: string, ext: string): string {
    return pathFor(createdAt, id, name, ext);
  }

  /** The absolute file path of a key, after checking that it stays inside the root. */
  resolve(key: string): string {
    validateKey(key);
    const full = resolve(this.root, key);
    if (!full.startsWith(this.root + sep)) throw new StorageKeyError('storage key leaves the root');
    return full;
  }

  /** Writes `buffer` at `key` atomically (temporary file + rename), creating directories. */
  async put(key: string, buffer: Uint8Array): Promise<void> {
    const target = this.resolve(key);
    const dir = dirname(target);
    await mkdir(dir, { recursive: true });
    const temp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
    try {
      await writeFile(temp, buffer, { flag: 'wx' });
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
  }

  /** The bytes at `key`, or null when there is no such file. */
  async get(key: string): Promise<Buffer | null> {
    try {
      return await readFile(this.resolve(key));
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  /** A read stream of the file at `key` (for serving); it errors with ENOENT when missing. */
  createReadStream(key: string, options?: { start?: number; end?: number }): ReadStream {
    return createReadStream(this.resolve(key), options);
  }

  async stat(key: string): Promise<StoredFileStat | null> {
    try {
      const s = await stat(this.resolve(key));
      return s.isFile() ? { size: s.size, mtime: s.mtime } : null;
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  /** Removes the file at `key`; true if there was one. */
  async delete(key: string): Promise<boolean> {
    try {
      await unlink(this.resolve(key));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  /**
   * Renames a file or a whole directory (e.g. `Y/M/D/<id>` → `Y/M/D/<id>-<key>` when an image is
   * hidden). The destination's parent is created; an existing destination is replaced for files.
   */
  async move(fromKey: string, toKey: string): Promise<void> {
    const from = this.resolve(fromKey);
    const to = this.resolve(toKey);
    await mkdir(dirname(to), { recursive: true });
    await rename(from, to);
  }

  /** Removes a directory key and everything under it (e.g. all files of one image). */
  async deleteTree(key: string): Promise<void> {
    await rm(this.resolve(key), { recursive: true, force: true });
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
