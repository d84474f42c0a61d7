/**
 * End to end with Debian's gallery-dl (philomena extractor) against a running server with the
 * search endpoints, the embedded engine and request limits on (gallery-dl's own pacing keeps it
 * under them):
 * - a search URL: gallery-dl pages `search/images?q=…&page=N&per_page=50&filter_id=2` until a
 *   short page, then downloads every `view_url`; the bytes must be the stored files;
 * - with an API key (`-o api-key=…`) it sends `key` instead of a filter, so the key user's
 *   filter (Default) applies;
 * - a gallery URL: `search/galleries?q=id:N`, then `search/images?q=gallery_id:N&sf=gallery_id:N&sd=desc`,
 *   so the images come in the gallery's order, last position first.
 *
 * Needs the `gallery-dl` command; without it the tests are skipped.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GALLERY_DL_MISSING, galleryDlVersion, newestFirst, runGalleryDl, startSearchBoard, type SearchBoard } from './search-board.js';

const version = galleryDlVersion();
if (!version) console.warn(GALLERY_DL_MISSING);

/** The file urls gallery-dl would download (`-g`), in its order, as image ids. */
async function urlIds(target: string, extra: string[] = []): Promise<number[]> {
  const { stdout } = await runGalleryDl(['-g', ...extra, target]);
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('http'))
    .map((line) => Number(/\/(\d+)__[^/]*$/.exec(line)?.[1]));
}

describe.skipIf(!version)(`gallery-dl ${version ?? '(missing)'} searching`, { timeout: 120_000 }, () => {
  let board: SearchBoard;

  beforeAll(async () => {
    board = await startSearchBoard();
  });

  afterAll(async () => {
    await board?.close();
  });

  it('downloads a search of 63 images across two pages, every file matching its sha512_hash', async () => {
    const dest = mkdtempSync(join(tmpdir(), 'tagwise-gdl-search-'));
    try {
      await runGalleryDl(['-D', dest, '--no-mtime', `philomena:${board.url}/search?q=bulk`]);
      const files = readdirSync(dest).sort();
      // gallery-dl sends filter_id=2 (Everything here) without a key: the explicit ones too
      expect(files).toHaveLength(63);
      const byId = new Map(board.images.map((im) => [im.id, im]));
      for (const file of files) {
        const id = Number(/^(\d+)__(safe|explicit)_bulk\.png$/.exec(file)?.[1]);
        const image = byId.get(id);
        expect(image, file).toBeDefined();
        const bytes = readFileSync(join(dest, file));
        expect(createHash('sha512').update(bytes).digest('hex')).toBe(image!.sha512);
      }
      // and what the API says for a sample
      const sample = board.images[17]!;
      const api = (await (await fetch(`${board.url}/api/v1/json/search/images?q=id:${sample.id}&filter_id=2`)).json()) as {
        images: { sha512_hash: string }[];
      };
      expect(api.images[0]!.sha512_hash).toBe(createHash('sha512').update(readFileSync(join(dest, files.find((f) => f.startsWith(`${sample.id}__`))!))).digest('hex'));
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });

  it('lists the search in the server’s default order', async () => {
    expect(await urlIds(`philomena:${board.url}/search?q=bulk`)).toEqual(newestFirst(board.images));
  });

  it('follows sf and sd given in the search URL', async () => {
    const ids = await urlIds(`philomena:${board.url}/search?q=bulk&sf=id&sd=asc`);
    expect(ids).toEqual(board.images.map((im) => im.id).sort((a, b) => a - b));
  });

  it('with an API key, the key user’s filter applies (Default hides explicit)', async () => {
    const ids = await urlIds(`philomena:${board.url}/search?q=bulk`, ['-o', `api-key=${board.alice.key}`]);
    expect(ids).toEqual(newestFirst(board.images.filter((im) => !im.tags.includes('explicit'))));
    const faves = await urlIds(`philomena:${board.url}/search?q=my:faves`, ['-o', `api-key=${board.alice.key}`]);
    expect(new Set(faves)).toEqual(new Set(board.alice.faves));
  });

  it('downloads a gallery in its order (last position first, as gallery-dl asks)', async () => {
    const target = `philomena:${board.url}/galleries/${board.gallery.id}`;
    expect(await urlIds(target)).toEqual([...board.gallery.byPosition].reverse());
    const { stdout } = await runGalleryDl(['--dump-json', target]);
    const messages = JSON.parse(stdout) as unknown[][];
    const directory = messages.find((m) => m[0] === 2)?.[1] as { gallery: Record<string, unknown> };
    expect(directory.gallery).toMatchObject({ id: board.gallery.id, title: 'Ordered Ponies', user: 'Alice', user_id: board.alice.id });
    const dest = mkdtempSync(join(tmpdir(), 'tagwise-gdl-gallery-'));
    try {
      await runGalleryDl(['-D', dest, '--no-mtime', target]);
      const files = readdirSync(dest);
      expect(files.map((f) => Number(/^(\d+)__/.exec(f)?.[1])).sort((a, b) => a - b)).toEqual([...board.gallery.byPosition].sort((a, b) => a - b));
    } finally {
      rmSync(dest, { recursive: true, force: true });
    }
  });
});

if (!version) {
  describe('gallery-dl search end to end', () => {
    it.skip(GALLERY_DL_MISSING, () => {});
  });
}
