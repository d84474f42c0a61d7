/**
 * Whether an error means the search engine cannot serve right now (every OpenSearch node down or
 * unreachable, no answer in time, a cluster refusing for lack of a shard or of room), as opposed
 * to a fault of the request. Such errors are answered 503 with Retry-After, not 500.
 */
import { OpenSearchError } from './opensearch/errors.js';

/** Seconds a client is asked to wait when the search engine is unavailable. */
export const SEARCH_RETRY_AFTER_SECONDS = 5;

export function isSearchUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof OpenSearchError) return e.unavailable;
  }
  return false;
}
