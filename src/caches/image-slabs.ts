/**
 * The memory of the image cache (`image-json-cache.ts`): records appended to large buffers
 * (slabs) outside the JavaScript heap, and what the cache keeps by slot beside them in one typed
 * array. The allocator appends, lets an emptied slab go, and compacts: once dropped records leave
 * more than a quarter of the records' bytes (and two slabs) unused, the emptiest slabs' records
 * are appended again at the head and those slabs let go.
 *
 * It knows two words of a record's header, the first two: the record's slot and its length in
 * bytes (padded to whole words). The rest of the record is the cache's.
 */

/** The header words the allocator reads: a record's slot, and its length in bytes. */
export const SLOT = 0;
export const LENGTH = 1;

/** The largest slab: a few megabytes, so that moving one's records when compacting is brief. */
const SLAB_BYTES = 4 * 1024 * 1024;

/**
 * One large buffer of records, appended to and never written over: a view handed out by a lookup
 * stays valid (and unchanged) for as long as it is held, even after its record was dropped or
 * moved, because a slab is never reused, only let go.
 */
export interface Slab {
  bytes: Buffer;
  /** The same memory as 32-bit words, for headers and tag ids. */
  words: Int32Array;
  /** Bytes appended so far. */
  used: number;
  /** Bytes of the records in it that the cache still holds. */
  live: number;
}

/** A slot's fields, one run of words a slot (see `Slots`). */
const SLOT_SLAB = 0;
const SLOT_OFFSET = 1;
const SLOT_USED = 2;
const SLOT_GENERATION = 3;
const SLOT_CHECK_TOKEN = 4;
const SLOT_CHECK_MEETS = 5;
/** Eight words: 32 bytes, so that a slot's fields never straddle two cache lines. */
const SLOT_WORDS = 8;

/**
 * What the cache keeps by slot besides the record: where it is (slab and offset), whether it was
 * read since eviction last passed it (`src/lib/second-chance.ts`), and the last tag check
 * remembered (the filter tags' token, 0 for none, and its answer). A slot's fields sit side by
 * side in one array: a lookup at a million images misses the processor's caches on nearly every
 * image, once a field if each had its own array. A slot's generation changes each time it takes
 * an image, so a view of an image no longer held cannot touch its successor's memo.
 */
export class Slots {
  fields = new Int32Array(1024 * SLOT_WORDS);
  private readonly free: number[] = [];
  private next = 0;

  take(): number {
    const slot = this.free.pop() ?? this.next++;
    if ((slot + 1) * SLOT_WORDS > this.fields.length) {
      const grown = new Int32Array(2 * this.fields.length);
      grown.set(this.fields);
      this.fields = grown;
    }
    const f = slot * SLOT_WORDS;
    this.fields[f + SLOT_GENERATION] = (this.fields[f + SLOT_GENERATION]! + 1) | 0;
    this.fields[f + SLOT_USED] = 0;
    this.fields[f + SLOT_CHECK_TOKEN] = 0;
    return slot;
  }

  release(slot: number): void {
    this.fields[slot * SLOT_WORDS + SLOT_SLAB] = -1;
    this.free.push(slot);
  }

  slab(slot: number): number {
    return this.fields[slot * SLOT_WORDS + SLOT_SLAB]!;
  }

  offset(slot: number): number {
    return this.fields[slot * SLOT_WORDS + SLOT_OFFSET]!;
  }

  place(slot: number, slab: number, offset: number): void {
    this.fields[slot * SLOT_WORDS + SLOT_SLAB] = slab;
    this.fields[slot * SLOT_WORDS + SLOT_OFFSET] = offset;
  }

  markUsed(slot: number): void {
    this.fields[slot * SLOT_WORDS + SLOT_USED] = 1;
  }

  /** Whether the slot was read since eviction last passed it, clearing its flag. */
  takeUse(slot: number): boolean {
    const used = this.fields[slot * SLOT_WORDS + SLOT_USED] === 1;
    this.fields[slot * SLOT_WORDS + SLOT_USED] = 0;
    return used;
  }

  generation(slot: number): number {
    return this.fields[slot * SLOT_WORDS + SLOT_GENERATION]!;
  }

  /** Whether the slot still holds the image it took at `generation`, marking it read if so. */
  holdsStill(slot: number, generation: number): boolean {
    const f = slot * SLOT_WORDS;
    if (f >= this.fields.length || this.fields[f + SLOT_SLAB] === -1 || this.fields[f + SLOT_GENERATION] !== generation) return false;
    this.fields[f + SLOT_USED] = 1;
    return true;
  }

  recallTagCheck(slot: number, generation: number, token: number): boolean | undefined {
    const f = slot * SLOT_WORDS;
    if (this.fields[f + SLOT_GENERATION] !== generation || this.fields[f + SLOT_CHECK_TOKEN] !== token) return undefined;
    return this.fields[f + SLOT_CHECK_MEETS] === 1;
  }

  rememberTagCheck(slot: number, generation: number, token: number, meets: boolean): void {
    const f = slot * SLOT_WORDS;
    if (this.fields[f + SLOT_GENERATION] !== generation) return;
    this.fields[f + SLOT_CHECK_TOKEN] = token;
    this.fields[f + SLOT_CHECK_MEETS] = meets ? 1 : 0;
  }
}

/** Slabs of records, appended to at the head; records are placed by slot in `Slots`. */
export class SlabAllocator {
  private readonly slabs: (Slab | undefined)[] = [];
  private readonly freeSlabIndexes: number[] = [];
  /** The slab records are appended to; -1 before the first. */
  private head = -1;
  /** The size of a slab (one record over a quarter of it gets a slab of its own). */
  readonly slabBytesEach: number;
  /** Memory of the slabs kept. */
  private slabBytes = 0;

  constructor(
    maxBytes: number,
    private readonly slots: Slots,
  ) {
    // a small budget gets small slabs: their unused ends are not worth megabytes
    this.slabBytesEach = Math.max(64 * 1024, Math.min(SLAB_BYTES, 2 ** Math.ceil(Math.log2(Math.max(1, maxBytes / 16)))));
  }

  /** The memory of its slabs. */
  get storedBytes(): number {
    return this.slabBytes;
  }

  slab(index: number): Slab {
    return this.slabs[index]!;
  }

  /**
   * Room for a record of `length` bytes at the end of a slab (its `used` moved past it): the
   * current one, a new one when it is full, or one of its own for a record over a quarter of a
   * slab. Returns the slab's index.
   */
  allocate(length: number): number {
    if (length > this.slabBytesEach / 4) {
      const index = this.newSlab(length);
      this.slabs[index]!.used = length;
      return index;
    }
    let head = this.head === -1 ? undefined : this.slabs[this.head];
    if (head === undefined || head.used + length > head.bytes.length) {
      const old = this.head;
      this.head = this.newSlab(this.slabBytesEach);
      if (head !== undefined && head.live === 0) this.freeSlab(old);
      head = this.slabs[this.head]!;
    }
    head.used += length;
    return this.head;
  }

  /** A record of `length` bytes in slab `index` is no longer held; a slab emptied goes. */
  release(index: number, length: number): void {
    const slab = this.slabs[index]!;
    slab.live -= length;
    if (slab.live === 0 && index !== this.head) this.freeSlab(index);
  }

  /** Let every slab go. */
  clear(): void {
    for (let i = 0; i < this.slabs.length; i++) if (this.slabs[i] !== undefined) this.freeSlab(i);
    this.head = -1;
  }

  /**
   * Give back the room dropped records left in their slabs once it exceeds a quarter of the
   * `recordBytes` held (and two slabs): the records of the emptiest slabs, at most two a call, are
   * appended again at the head, and those slabs let go.
   */
  compact(recordBytes: number): void {
    for (let round = 0; round < 2; round++) {
      const waste = this.slabBytes - recordBytes;
      if (waste <= Math.max(2 * this.slabBytesEach, recordBytes / 4)) return;
      let emptiest = -1;
      for (let i = 0; i < this.slabs.length; i++) {
        const slab = this.slabs[i];
        if (slab === undefined || i === this.head) continue;
        if (emptiest === -1 || slab.live / slab.bytes.length < this.slabs[emptiest]!.live / this.slabs[emptiest]!.bytes.length) emptiest = i;
      }
      if (emptiest === -1) return;
      this.moveRecords(emptiest);
    }
  }

  /** Append the records a slab still holds to the head, and let the slab go. */
  private moveRecords(index: number): void {
    const from = this.slabs[index]!;
    for (let at = 0, length = 0; at < from.used; at += length) {
      length = from.words[(at >> 2) + LENGTH]!;
      const slot = from.words[(at >> 2) + SLOT]!;
      if (this.slots.slab(slot) !== index || this.slots.offset(slot) !== at) continue;
      const to = this.allocate(length);
      const slab = this.slabs[to]!;
      slab.bytes.set(from.bytes.subarray(at, at + length), slab.used - length);
      slab.live += length;
      this.slots.place(slot, to, slab.used - length);
    }
    this.freeSlab(index);
  }

  private newSlab(size: number): number {
    // its own memory, outside the JS heap (a pooled Buffer would share a small one)
    const bytes = Buffer.allocUnsafeSlow(size);
    const slab: Slab = { bytes, words: new Int32Array(bytes.buffer, bytes.byteOffset, size >> 2), used: 0, live: 0 };
    const index = this.freeSlabIndexes.pop() ?? this.slabs.length;
    this.slabs[index] = slab;
    this.slabBytes += size;
    return index;
  }

  private freeSlab(index: number): void {
    this.slabBytes -= this.slabs[index]!.bytes.length;
    this.slabs[index] = undefined;
    this.freeSlabIndexes.push(index);
  }
}
