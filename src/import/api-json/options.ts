/** What an import needs beyond the board itself: where image files come from and go. */
import type { MediaStorage } from '../../media/storage.js';

export interface ImportOptions {
  /** Where image files go; needed when any image names a `file`. */
  fileStore?: MediaStorage;
  /** Directory that relative `file` paths are resolved against (default: the working directory). */
  baseDir?: string;
}
