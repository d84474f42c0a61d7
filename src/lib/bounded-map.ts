/**
 * A `Map` bounded by its number of entries, by bytes, or both: the one bounded map of the app's
 * caches. Past its budget it drops entries by second chance (`second-chance.ts`): `get` only marks
 * its entry as used, so a hit never moves anything in the underlying `Map` (a move per hit made V8
 * rebuild large tables at once), and the oldest entry not used since eviction last passed it goes.
 *
 * It counts nothing itself: a cache decides what a hit is (a kept answer may still be stale) and
 * counts it on its registration (`src/caches/registry.ts`).
 */
import { nextToEvict } from './second-chance.js';

export interface BoundedMapOptions<K, V> {
  /** Entries kept at most (no bound when absent). */
  maxEntries?: number;
  /** Bytes kept at most, as `sizeOf` counts them (no bound when absent). */
  maxBytes?: number;
  /** An entry's bytes, counted against `maxBytes`; 0 when absent. */
  sizeOf?: (value: V, key: K) => number;
  /** Told of each entry dropped for room (not of `delete` or `clear`), e.g. to drop what indexes it. */
  onEvict?: (key: K, value: V) => void;
}

interface Slot<V> {
  value: V;
  bytes: number;
  /** Read since eviction last passed it. */
  used: boolean;
}

export class BoundedMap<K, V> {
  private readonly slots = new Map<K, Slot<V>>();
  private heldBytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(private readonly options: BoundedMapOptions<K, V> = {}) {
    this.maxEntries = options.maxEntries ?? Number.POSITIVE_INFINITY;
    this.maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    if (!(this.maxEntries >= 1) || !(this.maxBytes >= 0)) throw new RangeError('BoundedMap: a budget of at least one entry and zero bytes');
  }

  get size(): number {
    return this.slots.size;
  }

  /** Bytes held, as `sizeOf` counted them. */
  get bytes(): number {
    return this.heldBytes;
  }

  /** The value of `key`, marked as used for eviction. */
  get(key: K): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.value;
  }

  /** The value of `key`, not marked as used. */
  peek(key: K): V | undefined {
    return this.slots.get(key)?.value;
  }

  has(key: K): boolean {
    return this.slots.has(key);
  }

  /**
   * Keep `value` for `key` in place of any before it, then drop entries while over budget.
   * Returns false, keeping nothing, when the entry alone is over the byte budget.
   */
  set(key: K, value: V): boolean {
    const bytes = this.options.sizeOf?.(value, key) ?? 0;
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    this.slots.set(key, { value, bytes, used: false });
    this.heldBytes += bytes;
    while (this.slots.size > this.maxEntries || this.heldBytes > this.maxBytes) this.evictOne();
    return true;
  }

  delete(key: K): boolean {
    const slot = this.slots.get(key);
    if (slot === undefined) return false;
    this.slots.delete(key);
    this.heldBytes -= slot.bytes;
    return true;
  }

  clear(): void {
    this.slots.clear();
    this.heldBytes = 0;
  }

  /** Keys and values, oldest first by eviction's order; deleting while iterating is allowed. */
  *entries(): IterableIterator<[K, V]> {
    for (const [key, slot] of this.slots) yield [key, slot.value];
  }

  *values(): IterableIterator<V> {
    for (const slot of this.slots.values()) yield slot.value;
  }

  private evictOne(): void {
    const key = nextToEvict(this.slots) as K;
    const slot = this.slots.get(key)!;
    this.delete(key);
    this.options.onEvict?.(key, slot.value);
  }
}
