/**
 * Where media lives: the original of every image and its representations, avatars, badge and tag
 * pictures, and the public dumps. One `MediaStorage` interface, two backends: a directory (which
 * may be a mount shared by every process, `storage-directory.ts`) and S3-compatible object storage
 * (`storage-s3.ts`); `storage-open.ts` picks one from `STORAGE_URL`. A storage is divided into
 * areas (`images`, `avatars`, `badge-img`, `tag-img`, `dumps`), each itself a `MediaStorage`.
 *
 * Image keys follow the reference's object storage: `Y/M/D/<id>/<name>.<ext>` with Y/M/D taken
 * from the image's UTC creation date and **not** zero-padded (philomena.md §5.4, §8.5). Hidden
 * images use `<id>-<key>` as the directory.
 *
 * Keys are relative POSIX paths; anything that could leave the area (`..`, `.`, empty segments,
 * absolute paths, backslashes, NUL) is refused in every backend. A write that fails because the
 * disk or the bucket is full throws `StorageFullError` and marks the storage's `StorageHealth`
 * full until a later write succeeds (the HTTP layer answers 507, `/readyz` and `/metrics` say so);
 * an object store that cannot be reached throws `StorageUnavailableError` (answered 503).
 */
import type { Readable } from 'node:stream';

export class StorageKeyError extends Error {
  override readonly name = 'StorageKeyError';
}

/** A write refused because the disk, the quota or the bucket is full; nothing was written. */
export class StorageFullError extends Error {
  override readonly name = 'StorageFullError';
}

/** The storage cannot be reached or answers with a server error (S3 down, a network failure). */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
}

export interface StoredFileStat {
  size: number;
  mtime: Date;
}

export interface StoredObject extends StoredFileStat {
  /** The key relative to the storage it was listed from. */
  key: string;
}

/** A file opened for serving: its size and time, and its bytes as they were when opened. */
export interface OpenedFile {
  stat: StoredFileStat;
  /** The bytes `start..end` (inclusive); called at most once, or null when the file is gone. */
  read(range: { start: number; end: number }): Promise<Readable | null>;
  /** Releases the file when `read` is not called (a 304, a HEAD, a 416). */
  close(): void;
}

/** How a file was placed by `putFile`: a hard link to the source, or a copy of its bytes. */
export type PlacedBy = 'linked' | 'copied';

export interface MediaStorage {
  /** Where this storage is, for logs and messages (`file:///srv/media/images`, `s3://bucket/prefix/images`). */
  readonly location: string;
  /** Shared by a storage and all its areas. */
  readonly health: StorageHealth;
  /** The storage under `<this>/<name>/`. */
  area(name: string): MediaStorage;
  /** Writes `bytes` at `key`, replacing what was there; readers never see half a file. */
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Writes the file at `sourcePath` (a local path) at `key`; a directory storage may hard-link it. */
  putFile(key: string, sourcePath: string, options?: { link?: boolean }): Promise<PlacedBy>;
  /** The bytes at `key`, or null when there is none. */
  get(key: string): Promise<Buffer | null>;
  /** A stream of the bytes `start..end` (inclusive; default the whole file), or null when missing. */
  read(key: string, range?: { start: number; end: number }): Promise<Readable | null>;
  stat(key: string): Promise<StoredFileStat | null>;
  /**
   * The file at `key` for serving, or null when missing: one request to an object store for the
   * usual whole-file answer (its stat and body come together), a file handle in a directory.
   */
  open(key: string): Promise<OpenedFile | null>;
  exists(key: string): Promise<boolean>;
  /** Removes the file at `key`; true if there was one. */
  delete(key: string): Promise<boolean>;
  /** Removes everything under the directory key `prefix` (e.g. all files of one image). */
  deleteTree(prefix: string): Promise<void>;
  /** Every file under the directory key `prefix` (everything when empty), in no promised order. */
  list(prefix?: string): AsyncIterable<StoredObject>;
}

/**
 * Whether the storage refused a write for want of space. Set by the first refused write, cleared
 * by the next write that succeeds, or by `probe` (a small test write) once space is back.
 */
export class StorageHealth {
  #fullSince: Date | null = null;
  #lastProbe = 0;

  get full(): boolean {
    return this.#fullSince !== null;
  }

  get fullSince(): Date | null {
    return this.#fullSince;
  }

  noteFull(): void {
    this.#fullSince ??= new Date();
  }

  noteWritten(): void {
    this.#fullSince = null;
  }

  /**
   * While full, at most every `intervalMs`, tries `write` (a small write and its removal) to learn
   * whether space is back; returns whether the storage is still full.
   */
  async probe(write: () => Promise<void>, intervalMs = 10_000): Promise<boolean> {
    if (!this.full || Date.now() - this.#lastProbe < intervalMs) return this.full;
    this.#lastProbe = Date.now();
    try {
      await write();
    } catch {
      // Still full (the write marked it), or another failure that says nothing about space.
    }
    return this.full;
  }
}

/** Writes and removes a small file, which clears `health.full` if space is back. */
export async function probeStorage(storage: MediaStorage): Promise<boolean> {
  return storage.health.probe(async () => {
    const key = `.probe/${process.pid}-${Date.now()}`;
    await storage.put(key, Buffer.from('probe'));
    await storage.delete(key);
  });
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

/** An area name: one safe segment. */
export function validateAreaName(name: string): void {
  validateKey(name);
  if (name.includes('/')) throw new StorageKeyError(`storage area must be one segment: ${JSON.stringify(name)}`);
}
