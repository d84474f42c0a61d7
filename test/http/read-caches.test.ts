/**
 * The caches behind image lists and the current filter, on their own: what an announced change
 * drops, the guard against keeping a load that overlapped a change, and the size bound.
 */
import { describe, expect, it } from 'vitest';
import { parseChange } from '../../src/db/record-change-feed.js';

import { FilterRowCache } from '../../src/caches/filter-row-cache.js';
import { ImageAnswerCache, type KeptImageAnswer } from '../../src/caches/image-answer-cache.js';
import { RecordJsonCache } from '../../src/caches/record-json-cache.js';
import { cachedImageBytes, cachedImageJson, ImageJsonCache, imageJsonParts, type CachedImage } from '../../src/caches/image-json-cache.js';
import type { FilterRow } from '../../src/contexts/filters/types.js';

/** One cached image's JSON for a caller whose filter does or does not spoiler it. */
const imageJsonText = (image: CachedImage, spoilered: boolean) =>
  Buffer.concat(imageJsonParts([image], spoilered ? new Set([image.id]) : new Set())).toString();

function image(id: number, tagIds: number[] = [], uploaderId: number | null = null): CachedImage {
  const json = JSON.stringify({ id, description: '"spoilered":false', spoilered: false, processed: true });
  return cachedImageJson(id, json, tagIds, uploaderId);
}

const ids = (found: Map<number, CachedImage>) => [...found.keys()].sort((a, b) => a - b);

describe('parseChange', () => {
  it('reads kind and id, and takes anything else as "everything changed"', () => {
    expect(parseChange('images:12')).toEqual({ kind: 'images', id: 12 });
    expect(parseChange('tag_images:3')).toEqual({ kind: 'tag_images', id: 3 });
    expect(parseChange('*')).toEqual({ kind: '*' });
    expect(parseChange('images:')).toEqual({ kind: '*' });
    expect(parseChange(':5')).toEqual({ kind: '*' });
    expect(parseChange('images:1.5')).toEqual({ kind: '*' });
  });
});

describe('image JSON split around spoilered', () => {
  it('puts the caller’s value back in place, even when a string holds the same text', () => {
    const view = { id: 7, description: 'say "spoilered":false here', spoilered: false, after: [1, 2] };
    const cached = cachedImageJson(7, JSON.stringify(view), [], null);
    expect(JSON.parse(imageJsonText(cached, true))).toEqual({ ...view, spoilered: true });
    expect(imageJsonText(cached, false)).toBe(JSON.stringify(view));
  });

  it('lists images comma-separated, each with its own value, whatever their text holds', () => {
    const views = [1, 2, 3, 4].map((id) => ({ id, description: `é “${id}” "spoilered":false`, spoilered: false }));
    const cached = views.map((v) => cachedImageJson(v.id, JSON.stringify(v), [], null));
    for (const spoilered of [new Set<number>(), new Set([1]), new Set([2, 3]), new Set([1, 2, 3, 4])]) {
      const text = Buffer.concat(imageJsonParts(cached, spoilered)).toString();
      expect(JSON.parse(`[${text}]`)).toEqual(views.map((v) => ({ ...v, spoilered: spoilered.has(v.id) })));
    }
    expect(imageJsonParts([], new Set())).toEqual([]);
  });

  it('refuses JSON without the field', () => {
    expect(() => cachedImageJson(1, '{"id":1}', [], null)).toThrow(/spoilered/);
  });
});

describe('ImageJsonCache', () => {
  it('serves what it keeps and names the rest', () => {
    const cache = new ImageJsonCache();
    cache.keep(cache.mark(), [image(1), image(2)]);
    const { found, missing } = cache.lookup([2, 3, 1]);
    expect(ids(found)).toEqual([1, 2]);
    expect(missing).toEqual([3]);
  });

  it('drops an image when its row changes, and everything on `*`', () => {
    const cache = new ImageJsonCache();
    cache.keep(cache.mark(), [image(1), image(2), image(3)]);
    cache.onChange({ kind: 'images', id: 2 });
    expect(cache.lookup([1, 2, 3]).missing).toEqual([2]);
    cache.onChange({ kind: '*' });
    expect(cache.size).toBe(0);
  });

  it('drops the images carrying a tag whose display changed, or uploaded by a renamed user', () => {
    const cache = new ImageJsonCache();
    cache.keep(cache.mark(), [image(1, [10, 11]), image(2, [11]), image(3, [12], 5), image(4, [], 6)]);
    cache.onChange({ kind: 'tags', id: 11 }); // an image count, which no image shows
    cache.onChange({ kind: 'tag_display', id: 10 });
    cache.onChange({ kind: 'user', id: 5 });
    cache.onChange({ kind: 'comments', id: 1 });
    expect(cache.lookup([1, 2, 3, 4]).missing).toEqual([1, 3]);
  });

  it('keeps a load that changes to other records overlapped', () => {
    const cache = new ImageJsonCache();
    const mark = cache.mark();
    cache.onChange({ kind: 'images', id: 99 });
    cache.onChange({ kind: 'tag_display', id: 98 });
    cache.onChange({ kind: 'user', id: 97 });
    cache.onChange({ kind: 'tags', id: 11 });
    cache.keep(mark, [image(1, [11], 5), image(2, [12])]);
    expect(ids(cache.lookup([1, 2]).found)).toEqual([1, 2]);
  });

  it('drops from a load the images that an overlapping change touched: the image, its tag’s display, its uploader', () => {
    const cache = new ImageJsonCache();
    const loaded = () => [image(1, [10]), image(2, [11]), image(3, [12], 5), image(4, [13], 6)];
    let mark = cache.mark();
    cache.onChange({ kind: 'images', id: 1 });
    cache.onChange({ kind: 'tag_display', id: 11 });
    cache.onChange({ kind: 'user', id: 5 });
    cache.keep(mark, loaded());
    expect(ids(cache.lookup([1, 2, 3, 4]).found)).toEqual([4]);
    // a change heard before the mark was already in what the load read
    mark = cache.mark();
    cache.keep(mark, loaded());
    expect(ids(cache.lookup([1, 2, 3, 4]).found)).toEqual([1, 2, 3, 4]);
  });

  it('keeps nothing of a load that overlapped `*`, or more changes than it remembers', () => {
    const cache = new ImageJsonCache();
    let mark = cache.mark();
    cache.onChange({ kind: '*' });
    cache.keep(mark, [image(1)]);
    expect(cache.size).toBe(0);
    mark = cache.mark();
    for (let id = 100; id < 100 + 4096; id++) cache.onChange({ kind: 'images', id });
    cache.keep(mark, [image(1)]);
    expect(cache.size).toBe(1);
    mark = cache.mark();
    for (let id = 100; id < 100 + 4097; id++) cache.onChange({ kind: 'images', id });
    cache.keep(mark, [image(2)]);
    expect(ids(cache.lookup([1, 2]).found)).toEqual([1]);
  });

  it('keeps at most maxBytes, dropping the least recently used', () => {
    const four = 4 * cachedImageBytes(image(1));
    const cache = new ImageJsonCache({ maxBytes: four });
    cache.keep(cache.mark(), [image(1), image(2), image(3), image(4)]);
    expect(cache.heldBytes).toBe(four);
    cache.lookup([1]);
    cache.keep(cache.mark(), [image(5)]);
    expect(ids(cache.lookup([1, 2, 3, 4, 5]).found)).toEqual([1, 3, 4, 5]);
    // a read is a second chance, not a place kept for good: 3 is passed over once, 1, 2 and 4 go
    const again = new ImageJsonCache({ maxBytes: four });
    again.keep(again.mark(), [image(1), image(2), image(3), image(4)]);
    again.lookup([3]);
    again.keep(again.mark(), [image(5), image(6), image(7)]);
    expect(ids(again.lookup([1, 2, 3, 4, 5, 6, 7]).found)).toEqual([3, 5, 6, 7]);
  });

  it('counts bytes, not entries: one large image takes the room of several small ones', () => {
    const small = image(1);
    const large = cachedImageJson(9, JSON.stringify({ id: 9, description: 'x'.repeat(20_000), spoilered: false }), [], null);
    const cache = new ImageJsonCache({ maxBytes: cachedImageBytes(large) + 2 * cachedImageBytes(small) });
    cache.keep(cache.mark(), [image(1), image(2), image(3), image(4)]);
    expect(cache.size).toBe(4);
    cache.keep(cache.mark(), [large]);
    expect(ids(cache.lookup([1, 2, 3, 4, 9]).found)).toEqual([3, 4, 9]);
    // a replaced entry is counted once, and whatever is dropped gives its bytes back
    cache.keep(cache.mark(), [large]);
    expect(cache.heldBytes).toBe(cachedImageBytes(large) + 2 * cachedImageBytes(small));
    cache.onChange({ kind: 'images', id: 9 });
    expect(cache.heldBytes).toBe(2 * cachedImageBytes(small));
    cache.clear();
    expect(cache.heldBytes).toBe(0);
  });

  /** What a reader sees of a cached image, as plain values. */
  const seen = (image: CachedImage) => ({
    id: image.id,
    json: Buffer.from(image.json).toString(),
    spoileredAt: image.spoileredAt,
    digest: image.digest,
    tagIds: [...Array.from(image.tagIds)],
    uploaderId: image.uploaderId,
    oembed: image.oembed,
  });

  /** An image with text of its own: tags, uploader, a description of `size` characters, oEmbed text. */
  function varied(id: number, size = 100, oembed?: string | null): CachedImage {
    const json = JSON.stringify({ id, description: `é${id}`.padEnd(size, '✓'), spoilered: false });
    return cachedImageJson(id, json, [id % 7, 100 + id, 2 ** 31 - 1], id % 3 === 0 ? null : id * 1000, oembed);
  }

  it('hands back exactly what it kept: text, digest, tags, uploader, oEmbed', () => {
    const cache = new ImageJsonCache();
    const kept = [varied(1), varied(2, 5_000, null), varied(3, 300, '{"title":"naïve ✓"}'), varied(4, 10)];
    cache.keep(cache.mark(), kept);
    const { found } = cache.lookup([1, 2, 3, 4]);
    expect([...found.values()].map(seen)).toEqual(kept.map(seen));
    // oEmbed asked for: an image kept without it is to be loaded; one kept with none (hidden) is not
    expect(cache.lookup([1, 2, 3], true).missing).toEqual([1]);
    expect(found.get(2)!.oembed).toBeNull();
  });

  it('keeps what a lookup handed out unchanged while the cache drops, moves and reuses its room', () => {
    const cache = new ImageJsonCache({ maxBytes: 2 * 1024 * 1024 });
    const first = Array.from({ length: 200 }, (_, i) => varied(i + 1, 1_000 + i));
    cache.keep(cache.mark(), first);
    const held = [...cache.lookup(first.map((i) => i.id)).found.values()];
    const before = held.map(seen);
    // every image replaced, dropped or evicted many times over
    for (let round = 0; round < 20; round++) {
      for (let id = 1; id <= 200; id += 2) cache.onChange({ kind: 'images', id });
      cache.keep(cache.mark(), Array.from({ length: 400 }, (_, i) => varied(1_000 * (round + 1) + i, 2_000)));
    }
    cache.clear();
    cache.keep(cache.mark(), Array.from({ length: 200 }, (_, i) => varied(i + 1, 1_500)));
    expect(held.map(seen)).toEqual(before);
  });

  it('gives back the room of dropped images, and still reads every image it holds', () => {
    const cache = new ImageJsonCache({ maxBytes: 16 * 1024 * 1024 });
    const images = Array.from({ length: 10_000 }, (_, i) => varied(i + 1, 100 + (i % 300)));
    cache.keep(cache.mark(), images);
    expect(cache.size).toBe(images.length);
    const full = cache.storedBytes;
    expect(full).toBeGreaterThan(cache.heldBytes / 2);
    // drop four in five, scattered over every slab
    for (const image of images) if (image.id % 5 !== 0) cache.onChange({ kind: 'images', id: image.id });
    const left = images.filter((image) => image.id % 5 === 0);
    // the next loads compact: the slabs come down to about what is held
    for (let i = 0; i < 40; i++) cache.keep(cache.mark(), [varied(100_000 + i)]);
    expect(cache.storedBytes).toBeLessThan(full / 2);
    const { found, missing } = cache.lookup(left.map((image) => image.id));
    expect(missing).toEqual([]);
    expect([...found.values()].map(seen)).toEqual(left.map(seen));
  });

  it('keeps an image larger than its slabs in one of its own, let go when the image is dropped', () => {
    const cache = new ImageJsonCache({ maxBytes: 4 * 1024 * 1024 });
    cache.keep(cache.mark(), [varied(1)]);
    const before = cache.storedBytes;
    const large = varied(2, 300_000, 'x');
    cache.keep(cache.mark(), [large]);
    expect(seen(cache.lookup([2]).found.get(2)!)).toEqual(seen(large));
    expect(cache.storedBytes).toBeGreaterThan(before + 300_000);
    cache.onChange({ kind: 'images', id: 2 });
    expect(cache.storedBytes).toBe(before);
  });

  it('remembers a tag check for the image it was made for, never for the one that takes its room', () => {
    const cache = new ImageJsonCache();
    cache.keep(cache.mark(), [varied(1)]);
    const old = cache.lookup([1]).found.get(1)!;
    old.rememberTagCheck!(7, true);
    expect(cache.lookup([1]).found.get(1)!.recallTagCheck!(7)).toBe(true);
    expect(cache.lookup([1]).found.get(1)!.recallTagCheck!(8)).toBeUndefined();
    // image 1 dropped, image 2 stored in its slot: the old view neither reads nor writes its memo
    cache.onChange({ kind: 'images', id: 1 });
    cache.keep(cache.mark(), [varied(2)]);
    old.rememberTagCheck!(9, true);
    expect(old.recallTagCheck!(7)).toBeUndefined();
    expect(cache.lookup([2]).found.get(2)!.recallTagCheck!(9)).toBeUndefined();
  });
});

describe('ImageAnswerCache', () => {
  /** An image cache holding images 1–4 (1 and 2 tagged 10, 3 uploaded by user 7, 4 tagged 12 alone), and a page of `ids` made of it. */
  function setUp(ids = [1, 2, 3]) {
    const images = new ImageJsonCache();
    images.keep(images.mark(), [image(1, [10]), image(2, [10, 11]), image(3, [], 7), image(4, [12])]);
    const pageOf = (listed: number[], total = listed.length): KeptImageAnswer => ({
      ids: listed,
      total,
      places: images.placesOf(listed)!,
      body: Buffer.from(JSON.stringify(listed)),
      etag: `"${listed.join('-')}"`,
      checkedAt: images.mark(),
    });
    const pages = new ImageAnswerCache(1024 * 1024);
    const request = {};
    pages.keep(request, pageOf(ids));
    return { images, pages, request, pageOf };
  }

  it('answers a page asked again while the engine answers the same and its images are held as they were', () => {
    const { images, pages, request } = setUp();
    expect(pages.find(request, images, { ids: [1, 2, 3], total: 3 })?.etag).toBe('"1-2-3"');
    // other images changing leaves it
    images.onChange({ kind: 'images', id: 4 });
    images.onChange({ kind: 'tag_display', id: 12 });
    images.onChange({ kind: 'user', id: 8 });
    images.onChange({ kind: 'tags', id: 10 });
    expect(pages.find(request, images, { ids: [1, 2, 3], total: 3 })?.etag).toBe('"1-2-3"');
    expect(pages.find({}, images, { ids: [1, 2, 3], total: 3 })).toBeUndefined();
  });

  it('looks at its images again only after a change was heard: an image evicted for room is not stale', () => {
    const { images, pages, request } = setUp();
    const small = new ImageJsonCache({ maxBytes: 1 });
    // (a page made of another cache's places: had its slots been looked at, they would not hold)
    const page = pages.find(request, images, { ids: [1, 2, 3], total: 3 })!;
    pages.keep(request, { ...page, checkedAt: small.mark() });
    expect(pages.find(request, small, { ids: [1, 2, 3], total: 3 })).toBeDefined();
    small.onChange({ kind: 'images', id: 99 });
    expect(pages.find(request, small, { ids: [1, 2, 3], total: 3 })).toBeUndefined();
  });

  it('does not answer once the engine answers other ids or another total', () => {
    for (const [ids, total] of [[[1, 2], 3], [[1, 3, 2], 3], [[1, 2, 3, 4], 3], [[1, 2, 3], 4]] as const) {
      const { images, pages, request } = setUp();
      expect(pages.find(request, images, { ids, total })).toBeUndefined();
      // (and a stale page is let go)
      expect(pages.size).toBe(0);
    }
  });

  it('does not answer once one of its images was dropped: its row, a tag it shows, its uploader, or everything', () => {
    const changes = [{ kind: 'images', id: 2 }, { kind: 'tag_display', id: 10 }, { kind: 'user', id: 7 }, { kind: '*' }] as const;
    for (const change of changes) {
      const { images, pages, request } = setUp();
      images.onChange(change);
      expect(pages.find(request, images, { ids: [1, 2, 3], total: 3 }), change.kind).toBeUndefined();
    }
  });

  it('does not answer when an image was dropped and stored again (its slot taken anew), nor another image in its slot', () => {
    const { images, pages, request, pageOf } = setUp();
    images.onChange({ kind: 'images', id: 3 });
    images.keep(images.mark(), [image(3, [], 7)]);
    expect(pages.find(request, images, { ids: [1, 2, 3], total: 3 })).toBeUndefined();
    // a page made now holds again
    pages.keep(request, pageOf([1, 2, 3]));
    expect(pages.find(request, images, { ids: [1, 2, 3], total: 3 })).toBeDefined();
    images.onChange({ kind: 'images', id: 1 });
    images.keep(images.mark(), [image(5)]);
    expect(pages.find(request, images, { ids: [1, 2, 3], total: 3 })).toBeUndefined();
  });

  it('keeps an answer just made only when no change heard meanwhile touched its images and it lists every image, held by the cache', () => {
    const { images } = setUp();
    const answers = new ImageAnswerCache(1024 * 1024);
    const made = (ids: number[], listed = ids) => ({ ids, total: ids.length, listed, body: Buffer.from('{}'), etag: `"${ids.join('-')}"` });
    // a single image's answer, by a key of its own, with no engine answer to compare
    const before = images.mark();
    answers.keepMade('0 1', images, before, made([1]));
    expect(answers.find('0 1', images)?.etag).toBe('"1"');
    images.onChange({ kind: 'images', id: 1 });
    expect(answers.find('0 1', images)).toBeUndefined();
    // a change heard while it was made to one of its images, a tag one carries or its uploader
    // leaves it unkept (image 2 stored again after its change: held, but not as it was read)
    for (const change of [{ kind: 'images', id: 2 }, { kind: 'tag_display', id: 11 }, { kind: 'user', id: 7 }]) {
      images.keep(images.mark(), [image(2, [10, 11]), image(3, [], 7)]);
      const during = images.mark();
      images.onChange(change);
      images.keep(images.mark(), [image(2, [10, 11]), image(3, [], 7)]);
      answers.keepMade('2 3', images, during, made([2, 3]));
      expect(answers.find('2 3', images), change.kind).toBeUndefined();
    }
    // one to another image, its tag or its uploader does not
    const during = images.mark();
    images.onChange({ kind: 'images', id: 4 });
    images.onChange({ kind: 'tag_display', id: 12 });
    images.onChange({ kind: 'user', id: 8 });
    answers.keepMade('2 3', images, during, made([2, 3]));
    expect(answers.find('2 3', images)?.etag).toBe('"2-3"');
    answers.onChange({ kind: '*' });
    // nor one overlapped by `*`
    const beforeAll = images.mark();
    images.onChange({ kind: '*' });
    images.keep(images.mark(), [image(2, [10, 11]), image(3, [], 7)]);
    answers.keepMade('2 3', images, beforeAll, made([2, 3]));
    expect(answers.find('2 3', images)).toBeUndefined();
    images.keep(images.mark(), [image(2, [10, 11]), image(3, [], 7)]);
    // an id missing from the answer, or an image the cache does not hold
    answers.keepMade('page', images, images.mark(), made([2, 3, 99], [2, 3]));
    answers.keepMade('0 1', images, images.mark(), made([1]));
    expect(answers.size).toBe(0);
    answers.keepMade('0 2', images, images.mark(), made([2]));
    expect(answers.find('0 2', images)?.etag).toBe('"2"');
  });

  it('stays within its bytes, letting the oldest page go first', () => {
    const { images, pageOf } = setUp();
    const one = pageOf([1, 2, 3]);
    const pageBytes = 256 + one.body.byteLength + one.places.byteLength + 8 * 3;
    const pages = new ImageAnswerCache(3 * pageBytes);
    const requests = [{}, {}, {}, {}];
    for (const request of requests) pages.keep(request, pageOf([1, 2, 3]));
    expect(pages.size).toBe(3);
    expect(pages.find(requests[0]!, images, { ids: [1, 2, 3], total: 3 })).toBeUndefined();
    for (const request of requests.slice(1)) expect(pages.find(request, images, { ids: [1, 2, 3], total: 3 })).toBeDefined();
    // the same request kept again takes its old place's room
    pages.keep(requests[1]!, pageOf([1, 2, 3]));
    expect(pages.size).toBe(3);
    pages.clear();
    expect(pages.size).toBe(0);
  });
});

describe('FilterRowCache', () => {
  const row = (id: number, name = 'Default') => ({ id, name }) as unknown as FilterRow;

  it('reads a filter once until a filter changes', async () => {
    const cache = new FilterRowCache();
    let reads = 0;
    const load = async (id: number) => (reads++, row(id));
    expect((await cache.byId(3, load))?.id).toBe(3);
    expect((await cache.byId(3, load))?.id).toBe(3);
    expect(reads).toBe(1);
    cache.onChange({ kind: 'images', id: 3 });
    await cache.byId(3, load);
    expect(reads).toBe(1);
    cache.onChange({ kind: 'filters', id: 8 });
    await cache.byId(3, load);
    expect(reads).toBe(2);
  });

  it('remembers that a filter does not exist, and the Default filter', async () => {
    const cache = new FilterRowCache();
    let reads = 0;
    const none = async () => (reads++, undefined);
    expect(await cache.byId(5, none)).toBeNull();
    expect(await cache.byId(5, none)).toBeNull();
    expect(await cache.defaultFilter(none)).toBeNull();
    expect(await cache.defaultFilter(none)).toBeNull();
    expect(reads).toBe(2);
  });

  it('does not keep a read that a change overlapped, and starts again after a minute', async () => {
    let now = 0;
    const cache = new FilterRowCache(() => now);
    let reads = 0;
    const racing = async () => {
      reads++;
      cache.onChange({ kind: 'filters', id: 1 });
      return row(1);
    };
    await cache.defaultFilter(racing);
    await cache.defaultFilter(async () => (reads++, row(1)));
    expect(reads).toBe(2);
    await cache.defaultFilter(async () => (reads++, row(1)));
    expect(reads).toBe(2);
    now += 60_001;
    await cache.defaultFilter(async () => (reads++, row(1)));
    expect(reads).toBe(3);
  });

  it('hands out a row read again unchanged as the same object, and a changed one as a new one', async () => {
    let now = 0;
    const cache = new FilterRowCache(() => now);
    const first = await cache.byId(3, async () => row(3));
    const theDefault = await cache.defaultFilter(async () => row(1));
    // another filter changed; a minute passed
    cache.onChange({ kind: 'filters', id: 8 });
    expect(await cache.byId(3, async () => row(3))).toBe(first);
    now += 60_001;
    expect(await cache.defaultFilter(async () => row(1))).toBe(theDefault);
    cache.onChange({ kind: 'filters', id: 3 });
    const edited = await cache.byId(3, async () => row(3, 'Edited'));
    expect(edited).not.toBe(first);
    expect(edited?.name).toBe('Edited');
  });
});

describe('RecordJsonCache', () => {
  const record = (id: number, ...watches: string[]) => ({ id, json: `{"id":${id}}`, watches: [`tags:${id}`, ...watches] });

  it('drops exactly the entries that watch a change', () => {
    const cache = new RecordJsonCache(1_000_000);
    cache.keep(cache.mark(), [record(1, 'tags:9'), record(2, 'tag_dnp:2'), record(3, 'tags:9')]);
    cache.onChange({ kind: 'tags', id: 9 });
    expect([...cache.lookup([1, 2, 3]).found.keys()]).toEqual([2]);
    cache.onChange({ kind: 'images', id: 2 });
    cache.onChange({ kind: 'tag_dnp', id: 2 });
    expect(cache.lookup([2]).missing).toEqual([2]);
  });

  it('keeps of a load that overlapped changes the records none of them concerns, and empties on `*`', () => {
    const cache = new RecordJsonCache(1_000_000);
    const mark = cache.mark();
    cache.onChange({ kind: 'comments', id: 77 });
    cache.onChange({ kind: 'tags', id: 9 });
    cache.keep(mark, [record(1), record(2, 'tags:9'), record(77)]);
    expect([...cache.lookup([1, 2, 77]).found.keys()]).toEqual([1, 77]);
    // a load that overlapped `*`, or more changes than are remembered, keeps nothing
    const beforeAll = cache.mark();
    cache.onChange({ kind: '*' });
    expect(cache.size).toBe(0);
    cache.keep(beforeAll, [record(3)]);
    const beforeMany = cache.mark();
    for (let i = 0; i < 1025; i++) cache.onChange({ kind: 'images', id: i });
    cache.keep(beforeMany, [record(4)]);
    expect(cache.size).toBe(0);
    cache.keep(cache.mark(), [record(1), record(2)]);
    cache.onChange({ kind: '*' });
    expect(cache.size).toBe(0);
  });

  it('stays within its bytes, dropping the least recently used', () => {
    const cache = new RecordJsonCache(1_200);
    cache.keep(cache.mark(), [record(1), record(2), record(3)]);
    cache.lookup([1]);
    cache.keep(cache.mark(), [record(4)]);
    expect(cache.size).toBeLessThan(4);
    expect(cache.lookup([1, 4]).missing).toEqual([]);
  });
});
