/**
 * Rendered image JSON kept between requests, for image lists (search pages).
 *
 * Why: an image list is the API's hottest answer, and building it from PostgreSQL (rows, tags,
 * sources, uploader names, display order, the view) cost several times what the search itself
 * does. The same images are listed again and again (first pages, popular tags), so each is kept
 * as its JSON text, split around the one field that depends on the caller's filter: `spoilered`.
 *
 * Freshness: an entry is dropped when PostgreSQL announces a change to anything it was built
 * from (see `src/db/change-feed.ts`): the image row and its taggings, sources, counts and
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
 * too (`ChangeFeed.sync`). An age bound would only reload a warm cache, entry by entry, from
 * PostgreSQL: at 1M images, hundreds of loads a second for nothing.
 */
import { createHash } from 'node:crypto';
import type { RecordChange } from '../../db/change-feed.js';
import { nextToEvict } from '../../lib/second-chance.js';

/**
 * One image's JSON as UTF-8, rendered with `spoilered: false`: a page is copied from these bytes
 * into one buffer, where a page joined as a string had to be flattened, measured and encoded on
 * its way to the socket (about 40 µs a page).
 */
export interface CachedImage {
  id: number;
  /** `,` and the image's JSON: a list's separator comes with each image but the first. */
  json: Uint8Array;
  /** Where the `false` of `"spoilered":false` starts in `json`. */
  spoileredAt: number;
  /**
   * A digest of the whole text: a list's entity tag is made of its images' digests, not of the
   * list's forty-odd kilobytes (hashing those cost a tenth of a millisecond a page).
   */
  digest: string;
  /** For the filter's spoiler and hide checks, and to drop the entry when a tag changes. */
  tagIds: readonly number[];
  /** The uploading user, whose rename changes `uploader`. */
  uploaderId: number | null;
  /**
   * The image's oEmbed answer as JSON text, null for a hidden image (which has none); rendered on
   * the first oEmbed request, not for every image a search page loads.
   */
  oembed?: string | null;
}

interface Entry {
  image: CachedImage;
  /** `cachedImageBytes(image)`, counted once. */
  bytes: number;
  /** Read since eviction last passed it (`src/lib/second-chance.ts`). */
  used: boolean;
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

/**
 * What an entry costs besides its JSON and oEmbed text: the entry and image objects, the digest,
 * the tag id array, the buffer view and the map's slot (measured with `process.memoryUsage` over
 * 100,000 entries: some 600 bytes, and 8 per tag id).
 */
const ENTRY_OVERHEAD_BYTES = 600;

/** The memory an image's entry holds, as counted against `maxBytes`. */
export function cachedImageBytes(image: CachedImage): number {
  // oEmbed text is a JavaScript string: two bytes a character at most
  return ENTRY_OVERHEAD_BYTES + image.json.byteLength + 8 * image.tagIds.length + 2 * (image.oembed?.length ?? 0);
}

const SPOILERED = '"spoilered":false';

/**
 * An image's JSON (rendered with `spoilered: false`), ready for lists. The key cannot occur inside
 * a string value, where every quote is escaped, so the first match is the field itself.
 */
export function cachedImageJson(id: number, json: string, tagIds: readonly number[], uploaderId: number | null, oembed?: string | null): CachedImage {
  const bytes = Buffer.from(`,${json}`);
  const at = bytes.indexOf(SPOILERED);
  if (at < 0) throw new Error(`image ${id}: rendered JSON has no spoilered field`);
  const spoileredAt = at + SPOILERED.length - 'false'.length;
  const digest = createHash('sha256').update(json).digest('base64url').slice(0, 22);
  return { id, json: bytes, spoileredAt, digest, tagIds, uploaderId, ...(oembed === undefined ? {} : { oembed }) };
}

const TRUE = Buffer.from('true');

/**
 * The pieces of cached images' JSON, comma-separated, each with its `spoilered` value: one piece
 * an image, three for a spoilered one.
 */
export function imageJsonParts(images: readonly CachedImage[], spoilered: ReadonlySet<number>): Uint8Array[] {
  const parts: Uint8Array[] = [];
  for (let i = 0; i < images.length; i++) {
    const { id, json, spoileredAt } = images[i]!;
    const start = i === 0 ? 1 : 0;
    if (spoilered.has(id)) parts.push(json.subarray(start, spoileredAt), TRUE, json.subarray(spoileredAt + 'false'.length));
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
const touches = (touched: Touched, image: CachedImage) =>
  touched.images.has(image.id) || (image.uploaderId !== null && touched.users.has(image.uploaderId)) || image.tagIds.some((t) => touched.tags.has(t));

export class ImageJsonCache {
  private readonly entries = new Map<number, Entry>();
  private readonly maxBytes: number;
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

  constructor(options: ImageJsonCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The bytes it may hold (`maxBytes`). */
  get budgetBytes(): number {
    return this.maxBytes;
  }

  /** Bytes held, as counted against `maxBytes`. */
  get heldBytes(): number {
    return this.bytes;
  }

  /** A mark to hand back to `keep`: taken before loading from PostgreSQL. */
  mark(): number {
    return this.changeCount;
  }

  /** The cached images among `ids`, and the ids to load. */
  lookup(ids: readonly number[]): { found: Map<number, CachedImage>; missing: number[] } {
    this.sweep();
    const found = new Map<number, CachedImage>();
    const missing: number[] = [];
    for (const id of ids) {
      const entry = this.entries.get(id);
      if (entry === undefined) {
        missing.push(id);
        continue;
      }
      entry.used = true;
      found.set(id, entry.image);
    }
    return { found, missing };
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
      if (stale !== null && touches(stale, image)) continue;
      this.drop(image.id);
      const entry = { image, bytes: cachedImageBytes(image), used: false };
      this.bytes += entry.bytes;
      this.entries.set(image.id, entry);
    }
    while (this.bytes > this.maxBytes) this.drop(nextToEvict(this.entries)!);
  }

  private drop(id: number): void {
    const entry = this.entries.get(id);
    if (entry === undefined) return;
    this.bytes -= entry.bytes;
    this.entries.delete(id);
  }

  /** Drop whatever `change` may have made stale. */
  onChange(change: RecordChange): void {
    if (!('id' in change)) {
      this.clearedAt = ++this.changeCount;
      this.entries.clear();
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
    for (const [id, { image }] of this.entries) {
      if (touches(changed, image)) this.drop(id);
    }
    this.changedTags.clear();
    this.changedUsers.clear();
  }
}
