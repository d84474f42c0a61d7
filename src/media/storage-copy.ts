/**
 * Copying the media of one storage into another (`npm run storage -- copy --to s3://…`), area by
 * area. Idempotent: a file already at the destination with the same size is left alone, so an
 * interrupted copy is simply run again. Files are copied a few at a time, streamed from a
 * directory source, never more than a few in memory.
 */
import { DirectoryStorage } from './storage-directory.js';
import { STORAGE_AREAS } from './storage-open.js';
import type { MediaStorage } from './storage.js';

export interface CopyProgress {
  area: string;
  /** Files of the area looked at so far, and in all. */
  done: number;
  total: number;
}

export interface CopySummary {
  copied: number;
  /** Files already at the destination with the same size. */
  skipped: number;
  bytes: number;
}

const PARALLEL = 8;

async function countFiles(storage: MediaStorage): Promise<number> {
  let n = 0;
  for await (const _ of storage.list()) n++;
  return n;
}

async function copyOne(from: MediaStorage, to: MediaStorage, key: string, size: number): Promise<boolean> {
  const there = await to.stat(key);
  if (there && there.size === size) return false;
  if (from instanceof DirectoryStorage) {
    await to.putFile(key, from.resolve(key), { link: false });
  } else {
    const bytes = await from.get(key);
    if (!bytes) return false; // removed since it was listed
    await to.put(key, bytes);
  }
  return true;
}

/** Copies every area of `from` into the same area of `to`. */
export async function copyStorage(from: MediaStorage, to: MediaStorage, onProgress: (p: CopyProgress) => void = () => {}): Promise<CopySummary> {
  const summary: CopySummary = { copied: 0, skipped: 0, bytes: 0 };
  for (const area of STORAGE_AREAS) {
    const source = from.area(area);
    const target = to.area(area);
    const total = await countFiles(source);
    let done = 0;
    onProgress({ area, done, total });
    const running = new Set<Promise<void>>();
    for await (const object of source.list()) {
      const task = copyOne(source, target, object.key, object.size).then((copied) => {
        if (copied) {
          summary.copied++;
          summary.bytes += object.size;
        } else summary.skipped++;
        onProgress({ area, done: ++done, total: Math.max(total, done) });
      });
      const tracked = task.finally(() => running.delete(tracked));
      running.add(tracked);
      if (running.size >= PARALLEL) await Promise.race(running);
    }
    await Promise.all(running);
  }
  return summary;
}
