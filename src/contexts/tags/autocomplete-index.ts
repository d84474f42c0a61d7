/**
 * The autocomplete index of one database, kept in memory and up to date from the outbox's
 * announcements (`record_changes`, src/db/record-change-feed.ts): every `tags:<id>` names a tag whose
 * row changed in a committed transaction. Changed tags are reloaded together a moment later; a
 * new image count moves the tag in place, anything else (a new, renamed, aliased or deleted tag,
 * or `*` from a bulk load or a reconnect) rebuilds the index from the tags table. Queries are
 * answered from the index they find, never waiting for a rebuild after the first load.
 *
 * One per app (`AppDeps.autocomplete`, made by src/http/app/compose.ts): the service loads it at
 * start, and the routes read that same index.
 */
import { loadCompletableTags, loadCompletableTagsById } from './completable.js';
import { recordChangeFeedOf, type RecordChange } from '../../db/record-change-feed.js';
import type { Database } from '../../db/client.js';
import { TagIndex } from '../../search/autocomplete/tag-index.js';

/** Changes are gathered this long before they are applied. */
const APPLY_DELAY_MS = 50;

export class LiveTagIndex {
  private current: TagIndex | null = null;
  private loading: Promise<TagIndex> | null = null;
  private readonly pending = new Set<number>();
  private rebuildPending = false;
  private timer: NodeJS.Timeout | null = null;
  /** Applying one batch at a time keeps changes in order. */
  private applying: Promise<void> = Promise.resolve();

  /**
   * `onLoad` hears of each whole load (the first, and each rebuild after a change that needs one),
   * e.g. to count them in the metrics.
   */
  constructor(
    private readonly db: Database,
    private readonly onLoad?: () => void,
  ) {
    const feed = recordChangeFeedOf(db);
    feed.subscribe((change) => this.heard(change));
    feed.start();
  }

  /** The index, loaded on first use. */
  async index(): Promise<TagIndex> {
    if (this.current !== null) return this.current;
    // A failed load is not kept: the next request tries again.
    this.loading ??= this.load().finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async load(): Promise<TagIndex> {
    const index = TagIndex.build(await loadCompletableTags(this.db));
    this.current = index;
    this.onLoad?.();
    return index;
  }

  private heard(change: RecordChange): void {
    if (change.kind === '*') this.rebuildPending = true;
    else if (change.kind === 'tags') this.pending.add(change.id);
    else return;
    this.timer ??= setTimeout(() => {
      this.timer = null;
      this.applying = this.applying.then(() => this.applySafely());
    }, APPLY_DELAY_MS).unref();
  }

  /** A batch that fails (the database is away) is retried whole at the next change. */
  private async applySafely(): Promise<void> {
    try {
      await this.apply();
    } catch {
      this.rebuildPending = true;
    }
  }

  private async apply(): Promise<void> {
    if (this.current === null && this.loading !== null) await this.loading.catch(() => {});
    if (this.current === null) {
      // Not loaded yet: the first load reads everything anyway.
      this.pending.clear();
      this.rebuildPending = false;
      return;
    }
    const ids = [...this.pending];
    this.pending.clear();
    let rebuild = this.rebuildPending;
    this.rebuildPending = false;
    if (!rebuild && ids.length > 0) {
      const rows = await loadCompletableTagsById(this.db, ids);
      const index = this.current;
      const byId = new Map(rows.map((r) => [r.id, r]));
      rebuild = ids.some((id) => {
        const row = byId.get(id);
        const known = index.tag(id);
        return row === undefined || known === undefined || row.name !== known.name || row.aliasOf !== known.aliasOf || row.category !== known.category;
      });
      if (!rebuild) for (const row of rows) index.setCount(row.id, row.images);
    }
    if (rebuild) await this.load();
  }
}
