/**
 * Search requests parsed from their JSON text, kept by the text: the same page asked again (the
 * common case, whose answer the result cache keeps) is neither parsed again nor given a new
 * object, so what the engine derives from a request once (its answer key, see result-cache.ts)
 * is found by identity. Kept requests are frozen, to the last array, so nothing can change one
 * that later searches share.
 */
import { BoundedMap } from '../../../lib/bounded-map.js';
import type { CacheCounts, CacheRegistry } from '../../../lib/cache-registry.js';
import type { SearchRequest } from '../../engine.js';

const MAX_ENTRIES = 4_096;
/** Texts longer than this are parsed each time: rare, and they would hold the most memory. */
const MAX_TEXT = 16_384;

export class ParsedRequests {
  private readonly byText = new BoundedMap<string, SearchRequest>({ maxEntries: MAX_ENTRIES });
  private readonly counts: CacheCounts;

  /** `registry`: the thread's engine's (`EmbeddedEngine.caches`), where it registers as `engine_parsed_requests`. */
  constructor(registry: CacheRegistry) {
    // a pure function of its key: nothing invalidates an entry
    this.counts = registry.register({ name: 'engine_parsed_requests', budget: { entries: MAX_ENTRIES }, invalidatedBy: [], held: () => ({ entries: this.byText.size }) });
  }

  /** `JSON.parse(text)`, the same object for the same text while it is kept. */
  parse(text: string): SearchRequest {
    const kept = this.byText.get(text);
    if (kept !== undefined) {
      this.counts.hit();
      return kept;
    }
    this.counts.miss();
    const request = JSON.parse(text) as SearchRequest;
    // (one kept a second at most names that second: its text is not sent again after it)
    if (text.length > MAX_TEXT || request.keepMs !== undefined) return request;
    this.byText.set(text, deepFreeze(request));
    return request;
  }
}

/** `value` with it and everything in it frozen (a JSON tree: no cycles). */
function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
