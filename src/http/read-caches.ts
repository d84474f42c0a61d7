/**
 * Moved to `src/caches/read-caches.ts`. Kept only for `routes/search.ts`, which is being moved in
 * a parallel change; remove once that lands and imports the new place.
 */
export { liveCaches } from '../caches/read-caches.js';
