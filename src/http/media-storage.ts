/** The media storage of an app: the one its deps name, else the one of its settings. */
import { openStorage } from '../media/storage-open.js';
import type { MediaStorage } from '../media/storage.js';
import type { AppDeps } from './context.js';

export function storageOf(deps: Pick<AppDeps, 'storage' | 'config'>): MediaStorage {
  return deps.storage ?? openStorage(deps.config.storage);
}
