/**
 * End to end with two npm API clients, unchanged, against a running server with the search
 * endpoints and the embedded engine:
 *
 * - dinky.js: `new SearchImages({url, linkOptions})` builds `search/images?q&sf&sd&per_page&page`
 *   and adds `key` and `filter_id` from its link options. It forces https on the base URL, so
 *   its (documented) `fetch` option gets a fetch that talks plain http to the local server.
 * - booru: a `Derpibooru` booru for the derpibooru.org site entry, whose `domain` is then pointed
 *   at the local server (`insecure` for http). It sends `q=a,b&limit=N&page=P` (`limit` is not
 *   ours; the page holds the default 25 and booru keeps the first N), `key` from the token, and
 *   counts with `search/images?&per_page=1&q=…`.
 *
 * Request limits are off here: these tests send more searches in a few seconds than a client may
 * (the gallery-dl tests run with them on).
 */
import { createHash } from 'node:crypto';
import { Derpibooru, Site, sites } from 'booru';
// @ts-expect-error dinky.js ships typings, but its package `exports` hide them from NodeNext resolution
import * as dinkyJs from 'dinky.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { datePath } from '../../src/media/storage.js';
import type * as Dinky from '../../node_modules/dinky.js/@type/dinky.js';
import { newestFirst, startSearchBoard, type BoardImage, type SearchBoard } from './search-board.js';

const { SearchGalleries, SearchImages, SearchTags } = dinkyJs as typeof Dinky;

/** What these tests read of dinky's answers (its own response typings do not resolve under NodeNext). */
interface DinkyImages {
  images: { id: number; createdAt: Date; viewUrl: string }[];
  interactions: { imageId: number; userId: number; interactionType: string; value: string }[];
  total: number;
}
interface DinkyGalleries {
  galleries: { id: number; title: string; userId: number }[];
  total: number;
}
interface DinkyTags {
  tags: { name: string }[];
  total: number;
}
/** Send a dinky request. */
const send = <T>(request: { exec(): Promise<unknown> }) => request.exec() as Promise<T>;

let board: SearchBoard;

beforeAll(async () => {
  board = await startSearchBoard({ rateLimits: false });
});

afterAll(async () => {
  await board?.close();
});

const safeOnly = () => board.images.filter((im) => !im.tags.includes('explicit'));
const byScoreAsc = (list: BoardImage[]) => [...list].sort((a, b) => a.score - b.score || a.id - b.id).map((im) => im.id);
const byCreatedDesc = (list: BoardImage[]) => [...list].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id - a.id).map((im) => im.id);

describe('dinky.js', () => {
  /** dinky.js forces https on its base URL; the local server speaks http. */
  const toHttp: typeof fetch = (input, init) => fetch(String(input).replace(/^https:/, 'http:'), init);
  const linkOptions = (extra: { key?: string; filter?: number } = {}) => ({ fetch: toHttp, ...extra });
  const images = (extra: { key?: string; filter?: number } = {}) => new SearchImages({ url: board.url, linkOptions: linkOptions(extra) });

  it('sf, sd, per_page (limit) and page, with filter_id', async () => {
    const res = await send<DinkyImages>(images({ filter: board.filters.everything }).query(['bulk']).sortBy('score').ascending().limit(10).page(2));
    expect(res.total).toBe(63);
    expect(res.images.map((i) => i.id)).toEqual(byScoreAsc(board.images).slice(10, 20));
    const first = res.images[0]!;
    expect(first.createdAt).toBeInstanceOf(Date);
    expect(first.viewUrl.startsWith(`${board.url}/img/view/`)).toBe(true);
    expect(res.interactions).toEqual([]);

    const desc = await send<DinkyImages>(images({ filter: board.filters.everything }).query(['bulk']).sortBy('score').descending().limit(10).page(2));
    expect(desc.images.map((i) => i.id)).toEqual([...byScoreAsc(board.images)].reverse().slice(10, 20));
  });

  it('the filter decides what is listed: Default (id 1) hides explicit, and is the anonymous default', async () => {
    expect((await send<DinkyImages>(images({ filter: board.filters.default }).query(['bulk']).limit(1))).total).toBe(60);
    expect((await send<DinkyImages>(images().query(['bulk']).limit(1))).total).toBe(60);
    expect((await send<DinkyImages>(images({ filter: board.filters.everything }).query(['bulk', 'explicit']).limit(50))).images.map((i) => i.id).sort((a, b) => a - b)).toEqual(
      board.images.filter((im) => im.tags.includes('explicit')).map((im) => im.id).sort((a, b) => a - b),
    );
  });

  it('with a key: the key user’s filter, interactions, and my:faves', async () => {
    const res = await send<DinkyImages>(images({ key: board.alice.key }).query(['bulk']).sortBy('created_at').descending().limit(50));
    expect(res.total).toBe(60);
    expect(res.images.map((i) => i.id)).toEqual(byCreatedDesc(safeOnly()).slice(0, 50));
    const listed = new Set(res.images.map((i) => i.id));
    expect(res.interactions).toEqual(
      board.alice.faves
        .filter((id) => listed.has(id))
        .sort((a, b) => a - b)
        .map((imageId) => ({ imageId, userId: board.alice.id, interactionType: 'faved', value: '' })),
    );
    const faves = await send<DinkyImages>(images({ key: board.alice.key }).faves().limit(50));
    expect(faves.images.map((i) => i.id).sort((a, b) => a - b)).toEqual([...board.alice.faves].sort((a, b) => a - b));
  });

  it('my:faves without a key: the request fails with 400, which dinky reports', async () => {
    await expect(images().faves().exec()).rejects.toMatchObject({ status: 400 });
    const res = await fetch(`${board.url}/api/v1/json/search/images?q=my:faves`);
    expect(await res.json()).toMatchObject({ error: "You must be logged in to use `my' queries." });
  });

  it('random order (dinky sends q=* when there is no query)', async () => {
    const res = await send<DinkyImages>(images().random().limit(50));
    expect(res.total).toBe(60);
    expect(new Set(res.images.map((i) => i.id)).size).toBe(50);
  });

  it('galleries and tags searches', async () => {
    const galleries = await send<DinkyGalleries>(new SearchGalleries({ url: board.url, linkOptions: linkOptions() }).query([`id:${board.gallery.id}`]));
    expect(galleries.total).toBe(1);
    expect(galleries.galleries[0]).toMatchObject({ id: board.gallery.id, title: 'Ordered Ponies', userId: board.alice.id });
    const tags = await send<DinkyTags>(new SearchTags({ url: board.url, linkOptions: linkOptions() }).query(['bulk']));
    expect(tags.tags.map((t) => t.name)).toEqual(['bulk']);
    const gallery = await send<DinkyImages>(
      images({ filter: board.filters.everything }).query([`gallery_id:${board.gallery.id}`]).sortBy(`gallery_id:${board.gallery.id}`).ascending(),
    );
    expect(gallery.images.map((i) => i.id)).toEqual(board.gallery.byPosition);
  });
});

describe('booru', () => {
  const host = () => new URL(board.url).host;
  /** Post ids (SearchResults is an Array subclass whose `map` does not make a plain array). */
  const idsOf = (posts: Iterable<{ id: string }>) => Array.from(posts, (p) => Number(p.id));
  function derpibooru(credentials?: Record<string, string>) {
    const booru = new Derpibooru(new Site(sites['derpibooru.org']), credentials);
    booru.site.domain = host();
    booru.site.insecure = true;
    return booru;
  }

  it('searches a page: booru asks for limit (ignored), gets the default 25 and keeps the first N', async () => {
    const expected = newestFirst(safeOnly());
    const first = await derpibooru().search(['bulk'], { limit: 5 });
    expect(idsOf(first)).toEqual(expected.slice(0, 5));
    const second = await derpibooru().search(['bulk'], { limit: 5, page: 1 });
    expect(idsOf(second)).toEqual(expected.slice(25, 30));
  });

  it('reads the fields it maps, and the file URL serves the image', async () => {
    const [post] = await derpibooru().search(['bulk'], { limit: 1 });
    const image = board.images.find((im) => im.id === Number(post!.id))!;
    expect(post!.available).toBe(true);
    expect(post!.tags).toEqual(image.tags);
    expect(post!.width).toBe(32);
    expect(post!.height).toBe(24);
    expect(post!.score).toBe(image.score);
    expect(post!.createdAt?.getTime()).toBe(Math.floor(image.createdAt.getTime() / 1000) * 1000);
    // representations.full, the short view URL
    expect(post!.fileUrl).toBe(`${board.url}/img/view/${datePath(image.createdAt)}/${image.id}.png`);
    expect(post!.sampleUrl?.startsWith(board.url)).toBe(true);
    expect(post!.previewUrl?.startsWith(board.url)).toBe(true);
    const bytes = Buffer.from(await (await fetch(post!.fileUrl!)).arrayBuffer());
    expect(createHash('sha512').update(bytes).digest('hex')).toBe(image.sha512);
  });

  it('counts with the leading empty parameter request', async () => {
    expect(await derpibooru().getPostCount(['bulk'])).toBe(60);
    expect(await derpibooru().getPostCount(['bulk', 'explicit'])).toBe(0);
  });

  it('with a token: the key is sent and my:faves works', async () => {
    const faves = await derpibooru({ token: board.alice.key }).search(['my:faves'], { limit: 25 });
    expect(idsOf(faves).sort((a, b) => a - b)).toEqual([...board.alice.faves].sort((a, b) => a - b));
  });

  it('random order (sf=random)', async () => {
    const posts = await derpibooru().search(['bulk'], { limit: 25, random: true });
    expect(posts).toHaveLength(25);
    expect(posts.every((p) => safeOnly().some((im) => im.id === Number(p.id)))).toBe(true);
  });
});
