/**
 * The directory backend of `MediaStorage`: files under a root directory, which may be a mount
 * shared by every process of the board (NFS, CephFS, ...). Writes are atomic: a temporary file in
 * the target directory is renamed over the key, so readers on any machine see the old file or the
 * new one. A write failing with ENOSPC or EDQUOT is a `StorageFullError`.
 */
import { randomBytes } from 'node:crypto';
import { copyFile, link, mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { orIf } from '../lib/or-if.js';
import { StorageFullError, StorageHealth, StorageKeyError, validateAreaName, validateKey } from './storage.js';
import type { MediaStorage, OpenedFile, PlacedBy, StoredFileStat, StoredObject } from './storage.js';

export class DirectoryStorage implements MediaStorage {
  readonly root: string;
  readonly health: StorageHealth;

  constructor(root: string, health = new StorageHealth()) {
    this.root = resolve(root);
    this.health = health;
  }

  get location(): string {
    return pathToFileURL(this.root).href;
  }

  area(name: string): DirectoryStorage {
    validateAreaName(name);
    return new DirectoryStorage(join(this.root, name), this.health);
  }

  /** The absolute file path of a key, after checking that it stays inside the root. */
  resolve(key: string): string {
    validateKey(key);
    const full = resolve(this.root, key);
    if (!full.startsWith(this.root + sep)) throw new StorageKeyError('storage key leaves the root');
    return full;
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    await this.#writeAtomically(key, (temp) => writeFile(temp, bytes, { flag: 'wx' }));
  }

  async putFile(key: string, sourcePath: string, options: { link?: boolean } = {}): Promise<PlacedBy> {
    if (options.link !== false) {
      try {
        // Linked under a temporary name and renamed over the key, so a file there is replaced.
        await this.#writeAtomically(key, (temp) => link(sourcePath, temp));
        return 'linked';
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== 'EXDEV' && code !== 'EPERM') throw error;
      }
    }
    await this.#writeAtomically(key, (temp) => copyFile(sourcePath, temp));
    return 'copied';
  }

  get(key: string): Promise<Buffer | null> {
    return orIf(() => readFile(this.resolve(key)), isMissing, null);
  }

  /** The file of a key opened for reading, or null when there is none. */
  private openFile(key: string): Promise<Awaited<ReturnType<typeof open>> | null> {
    const isMissingOrDirectory = (error: unknown) => isMissing(error) || (error as NodeJS.ErrnoException).code === 'EISDIR';
    return orIf(() => open(this.resolve(key), 'r'), isMissingOrDirectory, null);
  }

  async read(key: string, range?: { start: number; end: number }): Promise<Readable | null> {
    const handle = await this.openFile(key);
    if (handle === null) return null;
    // From here the bytes are the open file's, even if the key is replaced meanwhile.
    return handle.createReadStream({ ...(range ?? {}), autoClose: true });
  }

  async open(key: string): Promise<OpenedFile | null> {
    const handle = await this.openFile(key);
    if (handle === null) return null;
    try {
      const s = await handle.stat();
      if (!s.isFile()) {
        await handle.close();
        return null;
      }
      // The bytes served are the open file's, even if the key is replaced meanwhile.
      return {
        stat: { size: s.size, mtime: s.mtime },
        read: async (range) => handle.createReadStream({ ...range, autoClose: true }),
        close: () => void handle.close().catch(() => {}),
      };
    } catch (error) {
      await handle.close();
      throw error;
    }
  }

  stat(key: string): Promise<StoredFileStat | null> {
    return orIf(
      async () => {
        const s = await stat(this.resolve(key));
        return s.isFile() ? { size: s.size, mtime: s.mtime } : null;
      },
      isMissing,
      null,
    );
  }

  async exists(key: string): Promise<boolean> {
    return (await this.stat(key)) !== null;
  }

  delete(key: string): Promise<boolean> {
    return orIf(
      async () => {
        await unlink(this.resolve(key));
        return true;
      },
      isMissing,
      false,
    );
  }

  async deleteTree(prefix: string): Promise<void> {
    await rm(this.resolve(prefix), { recursive: true, force: true });
  }

  async *list(prefix = ''): AsyncIterable<StoredObject> {
    const start = prefix === '' ? this.root : this.resolve(prefix);
    const pending = [start];
    while (pending.length > 0) {
      const dir = pending.pop()!;
      let entries: import('node:fs').Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        if (isMissing(error)) continue;
        throw error;
      }
      for (const entry of entries) {
        const full = join(dir, entry.name);
        if (entry.isDirectory()) pending.push(full);
        else if (entry.isFile() && !entry.name.startsWith('.tmp-')) {
          const s = await stat(full).catch(() => null);
          if (s) yield { key: full.slice(this.root.length + 1).split(sep).join('/'), size: s.size, mtime: s.mtime };
        }
      }
    }
  }

  /** Writes a temporary file beside the key with `write`, then renames it over the key. */
  async #writeAtomically(key: string, write: (temp: string) => Promise<void>): Promise<void> {
    const target = this.resolve(key);
    const dir = dirname(target);
    const temp = join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
    await this.#guard(async () => {
      await mkdir(dir, { recursive: true });
      try {
        await write(temp);
        await rename(temp, target);
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
    });
  }

  /** Runs a write, turning "no space" into `StorageFullError` and noting either outcome. */
  async #guard<T>(write: () => Promise<T>): Promise<T> {
    try {
      const result = await write();
      this.health.noteWritten();
      return result;
    } catch (error) {
      if (!isNoSpace(error)) throw error;
      this.health.noteFull();
      throw new StorageFullError(`no space left for media under ${this.root}`, { cause: error });
    }
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function isNoSpace(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
