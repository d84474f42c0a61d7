/**
 * Which image is featured (`GET /images/featured`), kept between requests: reading it was a query
 * on every request of a route that is otherwise served from memory.
 *
 * Freshness: the answer is dropped by any change to the features (`image_features:id`, migration
 * 0008) and by a change to any image it watches: the featured one (hidden, it is featured no
 * more) and those featured after it (hidden now; shown again, one of them would be featured). An
 * image deleted outright is announced as a change too. A load that overlapped a change is not kept.
 */
import type { RecordChange } from '../db/change-feed.js';
import { CacheRegistry, type CacheCounts } from './registry.js';

interface Featured {
  imageId: number | undefined;
  watched: ReadonlySet<number>;
}

export class FeaturedImageCache {
  private kept: Featured | undefined;
  private changeCount = 0;
  private readonly counts: CacheCounts;

  constructor(registry = new CacheRegistry()) {
    const held = () => ({ entries: this.kept === undefined ? 0 : 1 });
    this.counts = registry.register({ name: 'featured_image', budget: { entries: 1 }, invalidatedBy: ['image_features', 'images', '*'], held });
  }

  /** The featured image id (undefined: none), read through `load` when not kept. */
  async imageId(load: () => Promise<{ imageId: number | undefined; watched: number[] }>): Promise<number | undefined> {
    if (this.kept !== undefined) {
      this.counts.hit();
      return this.kept.imageId;
    }
    this.counts.miss();
    const mark = this.changeCount;
    const { imageId, watched } = await load();
    if (mark === this.changeCount) this.kept = { imageId, watched: new Set(watched) };
    return imageId;
  }

  onChange(change: RecordChange): void {
    if (change.kind !== '*' && change.kind !== 'image_features' && change.kind !== 'images') return;
    // any image change counts for a load under way: the images it will watch are not known yet
    this.changeCount++;
    if (change.kind !== 'images' || this.kept?.watched.has(change.id)) this.kept = undefined;
  }
}
