/**
 * The ids of tags lately shown by slug (`GET /tags/:slug`). An id found here is only a guess: the
 * tag's JSON (fresh, from the cache of rendered tags) must still show that slug, else the tag was
 * renamed or deleted and the slug is looked up again; so no change needs to drop anything here.
 */
import { BoundedMap } from '../lib/bounded-map.js';
import { CacheRegistry, type CacheCounts } from './registry.js';

const MAX_SLUGS = 65_536;

export class TagSlugIds {
  private readonly ids = new BoundedMap<string, number>({ maxEntries: MAX_SLUGS });
  private readonly counts: CacheCounts;

  constructor(registry = new CacheRegistry()) {
    const invalidatedBy = ["checked on use against the tag's JSON"];
    this.counts = registry.register({ name: 'tag_slugs', budget: { entries: MAX_SLUGS }, invalidatedBy, held: () => ({ entries: this.ids.size }) });
  }

  /** The id last seen for `slug`, to be checked. */
  guess(slug: string): number | undefined {
    const id = this.ids.get(slug);
    if (id === undefined) this.counts.miss();
    else this.counts.hit();
    return id;
  }

  remember(slug: string, id: number): void {
    this.ids.set(slug, id);
  }

  /** The guess for `slug` was wrong. */
  forget(slug: string): void {
    this.ids.delete(slug);
  }
}
