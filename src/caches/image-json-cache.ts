/**
 * Rendered image JSON kept between requests, for image lists (search pages).
 *
 * Why: an image list is the API's hottest answer, and building it from PostgreSQL (rows, tags,
 * sources, uploader names, display order, the view) cost several times what the search itself
 * does. The same images are listed again and again (first pages, popular tags), so each is kept
 * as its JSON text, split around the one field that depends on the caller's filter: `spoilered`.
 *
 * Freshness: an entry is dropped when PostgreSQL announces a change to anything it was built
 * from (see `src/db/record-change-feed.ts`): the image row and its taggings, sources, counts and
 * intensities (`images:id`), what an image shows of a tag it carries (`tag_display:id`, migration
 * 0010: name, category and slug decide the tag list and its order; a change of the tag's image
 * count does not drop it), its uploader's name (`user:id`). Announcements arrive a moment after
 * the commit (well under a millisecond on one host), so lists, single images and oEmbed answers
 * are all served from here; a write through this process's own pool is heard before its next
 * request is answered only as fast as that.
 *
 * No entry expires by age. An announcement can be missed only while the listening connection is
 * down, and every time it is up again the feed announces `*`, which empties this cache (and
 * `keep` drops any load begun before it): postgres.js re-LISTENs after every close, retrying until
 * it succeeds; a connection that dies silently is found by TCP keep-alive, which postgres.js turns
 * on (60 s); PostgreSQL never drops a notification to a connected listener (when its queue is
 * full the notifying commit fails instead); and a barrier not heard within 2 s empties the caches
 * too (`RecordChangeFeed.sync`). An age bound would only reload a warm cache, entry by entry, from
 * PostgreSQL: at 1M images, hundreds of loads a second for nothing.
 *
 * Memory: the entries live outside the JavaScript heap. Each image is one record in a large
 * buffer (a slab, `image-slabs.ts`), and what the cache knows of it besides is kept in typed arrays by slot; only
 * the map from image id to slot is a heap object, one table of small integers. Why: a warm cache
 * of a million images held as objects (six or so an image, a gigabyte of heap) made every young
 * collection several times slower and every full one seconds of marking, the main cause of the
 * API's slowest answers under load. A lookup makes small short-lived views of the records it
 * found, which die young.
 */
import { createHash } from 'node:crypto';
import type { RecordChange } from '../db/record-change-feed.js';
import { nextToEvictBy } from '../lib/second-chance.js';
import type { TagCheckMemo } from '../contexts/search/tag-check-memo.js';
import { LENGTH, SLOT, SlabAllocator, Slots, type Slab } from './image-slabs.js';
import { CacheRegistry, type CacheCounts } from '../lib/cache-registry.js';

/**
 * One image's JSON as UTF-8, rendered with `spoilered: false`: a page is copied from these bytes
 * into one buffer, where a page joined as a string had to be flattened, measured and encoded on
 * its way to the socket (about 40 µs a page).
 */
export interface CachedImage extends Partial<TagCheckMemo> {
  readonly id: number;
  /** `,` and the image's JSON: a list's separator comes with each image but the first. */
  readonly json: Uint8Array;
  /** Where the `false` of `"spoilered":false` starts in `json`; -1 for a hidden image's stub, which has none. */
  readonly spoileredAt: number;
  /**
   * A digest of the whole text: a list's entity tag is made of its images' digests, not of the
   * list's forty-odd kilobytes (hashing those cost a tenth of a millisecond a page).
   */
  readonly digest: string;
  /** For the filter's spoiler and hide checks, and to drop the entry when a tag changes. */
  readonly tagIds: ArrayLike<number>;
  /** The uploading user, whose rename changes `uploader`. */
  readonly uploaderId: number | null;
  /**
   * The image's oEmbed answer as JSON text, null for a hidden image (which has none); rendered on
   * the first oEmbed request, not for every image a search page loads.
   */
  readonly oembed?: string | null;
}

export interface ImageJsonCacheOptions {
  /**
   * Bytes kept (`IMAGE_CACHE_MB`, by default from the machine's memory; 256 MiB here when not
   * given: some 85,000 images of the benchmark board's 3 KB), the oldest not read lately dropped
   * first (second chance, `src/lib/second-chance.ts`: a read only marks its entry). Counted by
   * size, not entries: a board's working set is a number of bytes, and an image's JSON runs from
   * under a kilobyte to tens of them (long descriptions, many tags).
   */
  maxBytes?: number;
}

/** The digest's length: 22 base64url characters (132 bits of SHA-256), one byte each. */
const DIGEST_CHARS = 22;

/**
 * A record's header, in 32-bit words: its slot, its length in bytes, the image id, the uploader
 * (-1 for none), the number of tag ids, the JSON's length, where `spoilered`'s value starts in
 * it, and the oEmbed text's length (-1 not rendered, -2 none: a hidden image). The tag ids follow
 * as words, then the digest, the JSON and the oEmbed text as bytes.
 */
const HEADER_WORDS = 8;
// SLOT and LENGTH, the first two, are the allocator's (image-slabs.ts)
const ID = 2;
const UPLOADER = 3;
const TAG_COUNT = 4;
const JSON_BYTES = 5;
const SPOILERED_AT = 6;
const OEMBED_BYTES = 7;
const NO_OEMBED = -1;
const HIDDEN = -2;

/** A record's length in bytes, padded to whole words (the next record's header is read as words). */
const recordLength = (tags: number, jsonBytes: number, oembedBytes: number) =>
  (4 * (HEADER_WORDS + tags) + DIGEST_CHARS + jsonBytes + oembedBytes + 3) & ~3;

/**
 * What an entry costs besides its record, counted against the budget with it: its place in the id
 * map (some 30 bytes of heap) and its slot's fields (32 bytes, up to twice that while the array
 * has room to grow); measured with `process.memoryUsage` over 1,000,000 entries: 63 bytes.
 */
const ENTRY_OVERHEAD_BYTES = 96;

const oembedBytesOf = (oembed: string | null | undefined) => (typeof oembed === 'string' ? Buffer.byteLength(oembed) : 0);

/** The memory an image's entry holds, as counted against `maxBytes`. */
export function cachedImageBytes(image: CachedImage): number {
  return ENTRY_OVERHEAD_BYTES + recordLength(image.tagIds.length, image.json.byteLength, oembedBytesOf(image.oembed));
}

const SPOILERED = '"spoilered":false';

/**
 * An image's JSON (rendered with `spoilered: false`, or a hidden image's `stub` without it), ready
 * for lists. The key cannot occur inside a string value, where every quote is escaped, so the first
 * match is the field itself.
 */
export function cachedImageJson(id: number, json: string, tagIds: readonly number[], uploaderId: number | null, oembed?: string | null, stub = false): CachedImage {
  const bytes = Buffer.from(`,${json}`);
  const at = stub ? -1 : bytes.indexOf(SPOILERED);
  if (!stub && at < 0) throw new Error(`image ${id}: rendered JSON has no spoilered field`);
  const spoileredAt = stub ? -1 : at + SPOILERED.length - 'false'.length;
  const digest = createHash('sha256').update(json).digest('base64url').slice(0, DIGEST_CHARS);
  return { id, json: bytes, spoileredAt, digest, tagIds, uploaderId, ...(oembed === undefined ? {} : { oembed }) };
}

const TRUE = Buffer.from('true');

/**
 * The pieces of cached images' JSON, comma-separated, each with its `spoilered` value: one piece
 * an image, three for a spoilered one (a stub has no `spoilered`: one piece).
 */
export function imageJsonParts(images: readonly CachedImage[], spoilered: ReadonlySet<number>): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < images.length; i++) {
    const { id, json, spoileredAt } = images[i]!;
    const start = i === 0 ? 1 : 0;
    if (spoileredAt >= 0 && spoilered.has(id)) parts.push(json.subarray(start, spoileredAt), TRUE, json.subarray(spoileredAt + 'false'.length));
    else parts.push(start === 0 ? json : json.subarray(start));
  }
  return parts;
}

/** How many of the last changes `keep` can tell apart; a load overlapping more keeps nothing. */
const RECENT_CHANGES = 4096;

/** The announced kinds that make an image's JSON stale, by what they name. */
const IMAGE = 0;
const TAG = 1;
const USER = 2;
const STALE_KINDS = new Map<string, number>([
  ['images', IMAGE],
  ['tag_display', TAG],
  ['user', USER],
]);

/** Images, tags and users some changes touched. */
interface Touched {
  images: Set<number>;
  tags: Set<number>;
  users: Set<number>;
}

/** Whether `touched` names the image itself, one of its tags or its uploader. */
function touches(touched: Touched, id: number, uploaderId: number | null, tagIds: ArrayLike<number>): boolean {
  if (touched.images.has(id) || (uploaderId !== null && touched.users.has(uploaderId))) return true;
  if (touched.tags.size === 0) return false;
  for (let i = 0; i < tagIds.length; i++) if (touched.tags.has(tagIds[i]!)) return true;
  return false;
}

/** A cached image as a lookup hands it out: views of its record, and its slot's tag check memo. */
class StoredImage implements CachedImage {
  readonly id: number;
  readonly json: Uint8Array;
  readonly spoileredAt: number;
  readonly digest: string;
  readonly tagIds: Int32Array;
  readonly uploaderId: number | null;
  private readonly oembedBytes: number;
  /** The slot's generation when looked up: the memo is the slot's only while it is unchanged. */
  private readonly generation: number;

  constructor(
    slab: Slab,
    at: number,
    private readonly slots: Slots,
    private readonly slot: number,
  ) {
    const w = at >> 2;
    const words = slab.words;
    const tags = words[w + TAG_COUNT]!;
    const uploader = words[w + UPLOADER]!;
    const digestAt = at + 4 * (HEADER_WORDS + tags);
    const jsonAt = digestAt + DIGEST_CHARS;
    const jsonEnd = jsonAt + words[w + JSON_BYTES]!;
    this.id = words[w + ID]!;
    this.tagIds = words.subarray(w + HEADER_WORDS, w + HEADER_WORDS + tags);
    this.digest = slab.bytes.toString('latin1', digestAt, jsonAt);
    this.json = new Uint8Array(slab.bytes.buffer, jsonAt, jsonEnd - jsonAt);
    this.spoileredAt = words[w + SPOILERED_AT]!;
    this.uploaderId = uploader === -1 ? null : uploader;
    this.oembedBytes = words[w + OEMBED_BYTES]!;
    this.generation = slots.generation(slot);
  }

  get oembed(): string | null | undefined {
    if (this.oembedBytes === NO_OEMBED) return undefined;
    if (this.oembedBytes === HIDDEN) return null;
    const end = this.json.byteOffset + this.json.byteLength;
    return Buffer.from(this.json.buffer, end, this.oembedBytes).toString('utf8');
  }

  recallTagCheck(token: number): boolean | undefined {
    return this.slots.recallTagCheck(this.slot, this.generation, token);
  }

  rememberTagCheck(token: number, meets: boolean): void {
    this.slots.rememberTagCheck(this.slot, this.generation, token, meets);
  }
}

export class ImageJsonCache {
  /** Image id to slot, in the order eviction passes them. */
  private readonly slotsById = new Map<number, number>();
  private readonly slots = new Slots();
  private readonly slabs: SlabAllocator;
  private readonly maxBytes: number;
  private readonly counts: CacheCounts;
  /** Bytes counted against `maxBytes`: the records and `ENTRY_OVERHEAD_BYTES` each. */
  private bytes = 0;
  /**
   * The changes that make an image's JSON stale, numbered as heard; the last `RECENT_CHANGES` are
   * remembered (kind and id, in a ring), so that `keep` drops only the loaded images a change
   * overlapping the load touched. Under a steady trickle of writes nearly every load overlaps
   * one, and dropping whole batches kept the cache from ever warming.
   */
  private changeCount = 0;
  private readonly recentKinds = new Uint8Array(RECENT_CHANGES);
  private readonly recentIds = new Float64Array(RECENT_CHANGES);
  /** The number of the last `*` (everything may have changed): no load from before it is kept. */
  private clearedAt = 0;
  /** Tags and users changed since the last sweep (dropping their images needs a pass over all). */
  private readonly changedTags = new Set<number>();
  private readonly changedUsers = new Set<number>();

  constructor(options: ImageJsonCacheOptions = {}, registry = new CacheRegistry()) {
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.slabs = new SlabAllocator(this.maxBytes, this.slots);
    const held = () => ({ entries: this.slotsById.size, bytes: this.bytes });
    this.counts = registry.register({ name: 'image_json', budget: { bytes: this.maxBytes }, invalidatedBy: ['images', 'tag_display', 'user', '*'], held });
  }

  get size(): number {
    return this.slotsById.size;
  }

  /** The bytes it may hold (`maxBytes`). */
  get budgetBytes(): number {
    return this.maxBytes;
  }

  /** Bytes held, as counted against `maxBytes`. */
  get heldBytes(): number {
    return this.bytes;
  }

  /**
   * The memory of its slabs: the records held, plus what dropped records left behind until their
   * slab is compacted (at most a quarter of the records' bytes, or two slabs).
   */
  get storedBytes(): number {
    return this.slabs.storedBytes;
  }

  /** Bytes of the records held: what is counted, less each entry's overhead. */
  private get recordBytes(): number {
    return this.bytes - ENTRY_OVERHEAD_BYTES * this.slotsById.size;
  }

  /**
   * A mark to hand back to `keep`, taken before loading from PostgreSQL; it moves with every
   * change heard that may make an image's JSON stale, and only then.
   */
  mark(): number {
    return this.changeCount;
  }

  /**
   * The cached images among `ids`, and the ids to load. With `withOembed`, an image kept without
   * its oEmbed answer counts as missing (it is loaded again with it).
   */
  lookup(ids: readonly number[], withOembed = false): { found: Map<number, CachedImage>; missing: number[] } {
    this.sweep();
    const found = new Map<number, CachedImage>();
    const missing: number[] = [];
    for (const id of ids) {
      const slot = this.slotsById.get(id);
      if (slot === undefined) {
        missing.push(id);
        continue;
      }
      const slab = this.slabs.slab(this.slots.slab(slot));
      const at = this.slots.offset(slot);
      if (withOembed && slab.words[(at >> 2) + OEMBED_BYTES] === NO_OEMBED) {
        missing.push(id);
        continue;
      }
      this.slots.markUsed(slot);
      found.set(id, new StoredImage(slab, at, this.slots, slot));
    }
    this.counts.hit(found.size);
    this.counts.miss(missing.length);
    return { found, missing };
  }

  /**
   * Where the images of `ids` are held, as pairs of slot and generation, for `holdsStill`; null
   * when one of them is not cached.
   */
  placesOf(ids: readonly number[]): Int32Array | null {
    this.sweep();
    const places = new Int32Array(2 * ids.length);
    for (let i = 0; i < ids.length; i++) {
      const slot = this.slotsById.get(ids[i]!);
      if (slot === undefined) return null;
      places[2 * i] = slot;
      places[2 * i + 1] = this.slots.generation(slot);
    }
    return places;
  }

  /**
   * `placesOf(ids)` for something made of these images since `mark` (read from the cache or
   * loaded): null also when a change heard since then touched one of them (the image, a tag it
   * carries, its uploader), as what was made may hold its JSON from before the change, or when
   * the changes since `mark` are no longer all remembered or one was `*`. Changes to other
   * images leave it made of current images.
   */
  placesUntouchedSince(mark: number, ids: readonly number[]): Int32Array | null {
    if (mark < this.clearedAt || this.changeCount - mark > RECENT_CHANGES) return null;
    const places = this.placesOf(ids);
    const touched = places === null ? null : this.changedSince(mark);
    if (touched === null) return places;
    for (let i = 0; i < ids.length; i++) if (this.heldTouches(touched, ids[i]!, places![2 * i]!)) return null;
    return places;
  }

  /** Whether `touched` names the image held in `slot`, one of its tags or its uploader. */
  private heldTouches(touched: Touched, id: number, slot: number): boolean {
    const words = this.slabs.slab(this.slots.slab(slot)).words;
    const w = this.slots.offset(slot) >> 2;
    const uploader = words[w + UPLOADER]!;
    return touches(touched, id, uploader === -1 ? null : uploader, words.subarray(w + HEADER_WORDS, w + HEADER_WORDS + words[w + TAG_COUNT]!));
  }

  /**
   * Whether every image of `places` (from `placesOf`) is still held as it was then: none dropped,
   * nor dropped and stored again, since. Counts as a read of each for eviction.
   */
  holdsStill(places: Int32Array): boolean {
    // pending tag and user drops first: a renamed tag's images must not pass
    this.sweep();
    for (let i = 0; i < places.length; i += 2) if (!this.slots.holdsStill(places[i]!, places[i + 1]!)) return false;
    return true;
  }

  /**
   * Keep images loaded since `mark`, but those that a change heard meanwhile touched (the image,
   * a tag it carries, its uploader): their load may have read the record before the change. When
   * the changes since `mark` are no longer all remembered, or one was `*`, nothing is kept.
   */
  keep(mark: number, images: readonly CachedImage[]): void {
    if (mark < this.clearedAt || this.changeCount - mark > RECENT_CHANGES) return;
    // pending tag and user drops first: they concern entries loaded before them, not these
    this.sweep();
    const stale = this.changedSince(mark);
    for (const image of images) {
      if (stale !== null && touches(stale, image.id, image.uploaderId, image.tagIds)) continue;
      this.drop(image.id);
      this.store(image);
    }
    while (this.bytes > this.maxBytes) this.drop(nextToEvictBy(this.slotsById, this.takeUse)!);
    this.slabs.compact(this.recordBytes);
  }

  private readonly takeUse = (slot: number): boolean => this.slots.takeUse(slot);

  /** Append the image's record and give it a slot. */
  private store(image: CachedImage): void {
    const tags = image.tagIds.length;
    const oembed = image.oembed;
    const oembedBytes = oembedBytesOf(oembed);
    const length = recordLength(tags, image.json.byteLength, oembedBytes);
    const slot = this.slots.take();
    const index = this.slabs.allocate(length);
    const slab = this.slabs.slab(index);
    const at = slab.used - length;
    const w = at >> 2;
    const words = slab.words;
    words[w + SLOT] = slot;
    words[w + LENGTH] = length;
    words[w + ID] = image.id;
    words[w + UPLOADER] = image.uploaderId ?? -1;
    words[w + TAG_COUNT] = tags;
    words[w + JSON_BYTES] = image.json.byteLength;
    words[w + SPOILERED_AT] = image.spoileredAt;
    words[w + OEMBED_BYTES] = oembed === undefined ? NO_OEMBED : oembed === null ? HIDDEN : oembedBytes;
    for (let i = 0; i < tags; i++) words[w + HEADER_WORDS + i] = image.tagIds[i]!;
    let b = at + 4 * (HEADER_WORDS + tags);
    slab.bytes.write(image.digest, b, DIGEST_CHARS, 'latin1');
    b += DIGEST_CHARS;
    slab.bytes.set(image.json, b);
    if (typeof oembed === 'string') slab.bytes.write(oembed, b + image.json.byteLength, oembedBytes, 'utf8');
    slab.live += length;
    this.slots.place(slot, index, at);
    this.slotsById.set(image.id, slot);
    this.bytes += ENTRY_OVERHEAD_BYTES + length;
  }

  private drop(id: number): void {
    const slot = this.slotsById.get(id);
    if (slot === undefined) return;
    const index = this.slots.slab(slot);
    const length = this.slabs.slab(index).words[(this.slots.offset(slot) >> 2) + LENGTH]!;
    this.slabs.release(index, length);
    this.bytes -= ENTRY_OVERHEAD_BYTES + length;
    this.slotsById.delete(id);
    this.slots.release(slot);
  }

  /** Drop whatever `change` may have made stale. */
  onChange(change: RecordChange): void {
    if (!('id' in change)) {
      this.clearedAt = ++this.changeCount;
      this.slabs.clear();
      for (const slot of this.slotsById.values()) this.slots.release(slot);
      this.slotsById.clear();
      this.bytes = 0;
      this.changedTags.clear();
      this.changedUsers.clear();
      return;
    }
    const kind = STALE_KINDS.get(change.kind);
    // not `tags`: that is announced by every change of a tag's image count, which no image shows
    if (kind === undefined) return;
    const at = ++this.changeCount % RECENT_CHANGES;
    this.recentKinds[at] = kind;
    this.recentIds[at] = change.id;
    if (kind === IMAGE) this.drop(change.id);
    else if (kind === TAG) this.changedTags.add(change.id);
    else this.changedUsers.add(change.id);
  }

  /** What the changes heard since `mark` touched; null when there were none. */
  private changedSince(mark: number): Touched | null {
    if (mark === this.changeCount) return null;
    const touched: Touched = { images: new Set(), tags: new Set(), users: new Set() };
    const sets = [touched.images, touched.tags, touched.users];
    for (let n = mark + 1; n <= this.changeCount; n++) {
      const at = n % RECENT_CHANGES;
      sets[this.recentKinds[at]!]!.add(this.recentIds[at]!);
    }
    return touched;
  }

  clear(): void {
    this.onChange({ kind: '*' });
  }

  /** Drop the images that carry a changed tag or were uploaded by a renamed user. */
  private sweep(): void {
    if (this.changedTags.size === 0 && this.changedUsers.size === 0) return;
    const changed: Touched = { images: new Set(), tags: this.changedTags, users: this.changedUsers };
    for (const [id, slot] of this.slotsById) if (this.heldTouches(changed, id, slot)) this.drop(id);
    this.changedTags.clear();
    this.changedUsers.clear();
  }
}
