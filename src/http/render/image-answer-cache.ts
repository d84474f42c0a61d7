/**
 * Moved to `src/caches/image-answer-cache.ts`. Kept only for `routes/search.ts`, which is being
 * moved in a parallel change; remove once that lands and imports the new place.
 */
export { answerKeepableThrough } from '../../caches/image-answer-cache.js';
