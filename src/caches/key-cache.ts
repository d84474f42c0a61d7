/**
 * What each `?key=` given to the API stands for, kept in memory: its user, an unknown key
 * (anonymous), or the key of a deactivated or unconfirmed user (refused). Reading that was a
 * query on every request that carries a key.
 *
 * Freshness: an answer is dropped when its user changes (`user:id`: a key issued or revoked, a
 * new role, a renamed user, a watch list rewritten by a tag alias; announced in the write's
 * transaction), and an unknown key's answer when any user gets a key (`user:id` again: the key
 * may be the new one); everything goes when the change feed reconnects (`*`). Answers are kept
 * only while changes are heard (`ReadCaches.feed.live`); when PostgreSQL cannot be reached, the
 * last answer known for a key is served, however old, so searches keep working from memory.
 */
import type { RecordChange } from '../db/change-feed.js';
import type { UserRow } from '../contexts/users/types.js';
import { BoundedMap } from '../lib/bounded-map.js';
import { CacheRegistry, type CacheCounts } from './registry.js';

export type KeyState = { kind: 'user'; user: UserRow } | { kind: 'anonymous' } | { kind: 'refused'; userId: number | null };

/** Keys kept at most; past that the least used go. */
const MAX_ENTRIES = 20_000;

const userIdOf = (state: KeyState): number | null => (state.kind === 'user' ? state.user.id : state.kind === 'refused' ? state.userId : null);

export class KeyCache {
  private readonly entries = new BoundedMap<string, KeyState>({ maxEntries: MAX_ENTRIES });
  /** Bumped by every change heard: a read that overlapped one must not be kept. */
  private changeCount = 0;
  private readonly counts: CacheCounts;

  constructor(registry = new CacheRegistry()) {
    this.counts = registry.register({ name: 'api_keys', budget: { entries: MAX_ENTRIES }, invalidatedBy: ['user', '*'], held: () => ({ entries: this.entries.size }) });
  }

  get size(): number {
    return this.entries.size;
  }

  onChange(change: RecordChange): void {
    if (change.kind === '*') {
      this.changeCount++;
      this.entries.clear();
    } else if (change.kind === 'user') {
      this.changeCount++;
      for (const [key, state] of this.entries.entries()) {
        const owner = userIdOf(state);
        if (owner === null || owner === change.id) this.entries.delete(key);
      }
    }
  }

  /**
   * The state of `key`: from memory when `live` and known, else read with `load` (and kept when
   * no change was heard meanwhile); a failed read serves the last state known.
   */
  async resolve(key: string, live: boolean, load: () => Promise<KeyState>): Promise<KeyState> {
    const known = this.entries.get(key);
    if (live && known !== undefined) {
      this.counts.hit();
      return known;
    }
    this.counts.miss();
    const mark = this.changeCount;
    let state: KeyState;
    try {
      state = await load();
    } catch (err) {
      if (known !== undefined) return known;
      throw err;
    }
    if (mark === this.changeCount) this.entries.set(key, state);
    return state;
  }
}
