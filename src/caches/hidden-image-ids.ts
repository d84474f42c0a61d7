/**
 * Which images are merged or deleted, for the file routes, which withhold their files: asked of
 * PostgreSQL on every file request, that check added 1.5 to 3.7 ms to a thumbnail's 2 to 7 ms
 * (1,000 requests in a row, on 2 cores at a load average of 20: rough figures).
 *
 * Few images are hidden, so their ids are read once, on the first question, and kept. A change
 * announced for an image (`images:id`) leaves its id unsettled: the next question about it asks
 * PostgreSQL, whose answer is kept once no image change was heard meanwhile. Every reconnect of
 * the feed (`*`) forgets everything, and so do more unsettled ids than `MAX_UNSETTLED` (changes
 * to images no one asks about, such as votes, would otherwise pile up). While changes cannot be
 * heard, PostgreSQL is asked every time; when it cannot be reached, the ids last known answer (as
 * the key and ban caches do), so that files stay served through an outage.
 */
import { allHiddenImageIds, isImageHidden } from '../contexts/images/hidden.js';
import type { RecordChange } from '../db/change-feed.js';
import type { Database } from '../db/client.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import { CacheRegistry, type CacheCounts } from './registry.js';

const MAX_UNSETTLED = 10_000;

export class HiddenImageIds {
  private hidden: Set<number> | undefined;
  private loading: Promise<Set<number>> | undefined;
  private readonly unsettled = new Set<number>();
  /** Image changes heard, and reconnects: an answer read across either may be stale. */
  private changes = 0;
  private resets = 0;
  private readonly counts: CacheCounts;

  /** Its budget counts the unsettled ids: the hidden ones are as many as the board hides. */
  constructor(registry = new CacheRegistry()) {
    const held = () => ({ entries: (this.hidden?.size ?? 0) + this.unsettled.size });
    this.counts = registry.register({ name: 'hidden_image_ids', budget: { entries: MAX_UNSETTLED }, invalidatedBy: ['images', '*'], held });
  }

  /** Whether the image is merged or deleted (false for an id no image has); `live`: changes are heard. */
  async isHidden(db: Database, id: number, live: boolean): Promise<boolean> {
    if (!live || this.unsettled.has(id) || this.hidden === undefined) this.counts.miss();
    else this.counts.hit();
    if (!live) return this.askOrRecall(db, id);
    if (this.unsettled.has(id)) return this.settle(db, id);
    const hidden = this.hidden ?? (await this.load(db));
    return hidden.has(id);
  }

  onChange(change: RecordChange): void {
    if (change.kind === '*') {
      this.forget();
    } else if (change.kind === 'images') {
      this.changes++;
      this.unsettled.add(change.id);
      if (this.unsettled.size > MAX_UNSETTLED) this.forget();
    }
  }

  private async askOrRecall(db: Database, id: number): Promise<boolean> {
    try {
      return await isImageHidden(db, id);
    } catch (err) {
      const known = this.hidden !== undefined && !this.unsettled.has(id) ? this.hidden.has(id) : undefined;
      if (known === undefined || !isDatabaseUnavailable(err)) throw err;
      return known;
    }
  }

  private forget(): void {
    this.resets++;
    this.hidden = undefined;
    this.loading = undefined;
    this.unsettled.clear();
  }

  private async settle(db: Database, id: number): Promise<boolean> {
    // the set first: a load may have read the image before its change, this answer comes after
    const loaded = this.hidden ?? (await this.load(db));
    const changes = this.changes;
    const resets = this.resets;
    const hidden = await isImageHidden(db, id);
    if (changes === this.changes && resets === this.resets && this.hidden === loaded) {
      if (hidden) loaded.add(id);
      else loaded.delete(id);
      this.unsettled.delete(id);
    }
    return hidden;
  }

  private load(db: Database): Promise<Set<number>> {
    this.loading ??= (async () => {
      const resets = this.resets;
      const hidden = new Set(await allHiddenImageIds(db));
      if (resets === this.resets) {
        this.hidden = hidden;
        this.loading = undefined;
      }
      return hidden;
    })();
    return this.loading;
  }
}
