/**
 * A `Map` bounded by its number of entries, by bytes, or both: the one bounded map of the app's
 * caches. Past its budget it drops entries by second chance (`second-chance.ts`'s rule): `get`
 * only marks its entry as used, and the oldest entry not used since eviction last passed it goes,
 * the used ones before it given their second chance (at most `MAX_PASSES` for one eviction).
 *
 * The order of eviction is a queue of its own beside the `Map`, not the `Map`'s insertion order:
 * finding a `Map`'s oldest key (`keys().next()`) walks over every deleted entry V8 has not yet
 * compacted away, so a full map dropping its oldest key on each insert spent tens of
 * microseconds an insert; and passing over a used entry would move it in the `Map` (a delete and
 * a set, whose holes make V8 rebuild large tables at once). A queued key whose entry was since
 * deleted or replaced is passed over, and the queue is compacted once it holds twice the entries
 * (or its passed part is longer than the rest), so it costs a few words an entry.
 *
 * It counts nothing itself: a cache decides what a hit is (a kept answer may still be stale) and
 * counts it on its registration (`src/caches/registry.ts`).
 */
import { MAX_PASSES } from './second-chance.js';

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

/** Queued or passed entries the queue may hold beyond its live ones before it is compacted. */
const QUEUE_SLACK = 64;

export class BoundedMap<K, V> {
  private readonly slots = new Map<K, Slot<V>>();
  /** The order of eviction: keys, and the slot each was queued with, from `head` on. */
  private queuedKeys: K[] = [];
  private queuedSlots: Slot<V>[] = [];
  private head = 0;
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
   * Keep `value` for `key` in place of any before it (as the youngest entry), then drop entries
   * while over budget. Returns false, keeping nothing, when the entry alone is over the byte budget.
   */
  set(key: K, value: V): boolean {
    const bytes = this.options.sizeOf?.(value, key) ?? 0;
    this.delete(key);
    if (bytes > this.maxBytes) return false;
    const slot: Slot<V> = { value, bytes, used: false };
    this.slots.set(key, slot);
    this.heldBytes += bytes;
    this.enqueue(key, slot);
    while (this.slots.size > this.maxEntries || this.heldBytes > this.maxBytes) this.evictOne();
    const queued = this.queuedKeys.length - this.head;
    // stale entries (deleted or replaced keys), or a passed prefix as long as what remains
    if (queued > 2 * this.slots.size + QUEUE_SLACK || (this.head > QUEUE_SLACK && this.head > queued)) this.compactQueue();
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
    this.queuedKeys = [];
    this.queuedSlots = [];
    this.head = 0;
    this.heldBytes = 0;
  }

  /** Keys and values, in the order they were set; deleting while iterating is allowed. */
  *entries(): IterableIterator<[K, V]> {
    for (const [key, slot] of this.slots) yield [key, slot.value];
  }

  *values(): IterableIterator<V> {
    for (const slot of this.slots.values()) yield slot.value;
  }

  private enqueue(key: K, slot: Slot<V>): void {
    this.queuedKeys.push(key);
    this.queuedSlots.push(slot);
  }

  /** Drop the oldest entry not used since last passed (or, past `MAX_PASSES` used ones, the oldest). */
  private evictOne(): void {
    for (let passes = 0; ; ) {
      const key = this.queuedKeys[this.head]!;
      const slot = this.queuedSlots[this.head]!;
      this.head++;
      // deleted or replaced since it was queued
      if (this.slots.get(key) !== slot) continue;
      if (slot.used && passes < MAX_PASSES) {
        slot.used = false;
        passes++;
        this.enqueue(key, slot);
        continue;
      }
      this.delete(key);
      this.options.onEvict?.(key, slot.value);
      return;
    }
  }

  /** The queue without its stale and passed entries, in the same order. */
  private compactQueue(): void {
    const keys: K[] = [];
    const slots: Slot<V>[] = [];
    for (let i = this.head; i < this.queuedKeys.length; i++) {
      const key = this.queuedKeys[i]!;
      const slot = this.queuedSlots[i]!;
      if (this.slots.get(key) === slot) {
        keys.push(key);
        slots.push(slot);
      }
    }
    this.queuedKeys = keys;
    this.queuedSlots = slots;
    this.head = 0;
  }
}
