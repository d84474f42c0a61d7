/**
 * The storage a process uses, from its settings (`STORAGE_URL`, see src/config.ts): one per
 * settings object, so the web layer, the job worker and the CLIs of one process share one S3
 * client and one `StorageHealth`. Areas: `images` (originals and representations, keyed
 * `Y/M/D/<id>/<name>.<ext>`), `avatars`, `badge-img`, `tag-img` and `dumps`.
 */
import type { StorageSettings } from '../config.js';
import { DirectoryStorage } from './storage-directory.js';
import { S3Storage, s3ClientFor } from './storage-s3.js';
import type { MediaStorage } from './storage.js';

export const STORAGE_AREAS = ['images', 'avatars', 'badge-img', 'tag-img', 'dumps'] as const;
export type StorageArea = (typeof STORAGE_AREAS)[number];

const opened = new WeakMap<StorageSettings, MediaStorage>();

/** The root storage of these settings (the same object for the same settings). */
export function openStorage(settings: StorageSettings): MediaStorage {
  let storage = opened.get(settings);
  if (!storage) {
    storage = settings.kind === 'directory' ? new DirectoryStorage(settings.root) : new S3Storage(s3ClientFor(settings), settings.bucket, settings.prefix);
    opened.set(settings, storage);
  }
  return storage;
}

/** The image area of a process's storage: `openStorage(config.storage).area('images')`. */
export function imageStorage(config: { storage: StorageSettings }): MediaStorage {
  return openStorage(config.storage).area('images');
}
