/**
 * A write answered by this process is never followed by a stale read here: before the answer of
 * any request that may write (every method but GET, HEAD and OPTIONS) leaves, the caches of
 * `src/caches/read-caches.ts` have heard every change committed so far (`ChangeFeed.sync`).
 *
 * Why: the caches learn of changes from PostgreSQL's announcements, which arrive a moment after
 * the commit. Without this, a client that changed an image and read it at once could get the copy
 * from before its change. Writes made by other processes are heard when their announcements
 * arrive; the writer there waits for its own.
 */
import type { ChangeFeed } from '../../db/change-feed.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** After the answer of a request that may write is made (the request frame calls it): the caches caught up; nothing for reads. */
export function catchUpAfterWrite(feed: ChangeFeed, method: string): Promise<void> | undefined {
  return READS.has(method) ? undefined : feed.sync();
}
