/**
 * Hostile submissions and reverse searches over real HTTP: oversize tag input, truncated files,
 * images over the pixel limit, a full decode queue, oversize non-file bodies, and a tag id
 * sequence moved behind ids already in use (as an import beside live uploads used to do).
 */
import http from 'node:http';
import { eq, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOrCreateTags } from '../../src/contexts/tags/get-or-create.js';
import * as s from '../../src/db/schema/index.js';
import { requestDecodes } from '../../src/media/sandbox/decodes.js';
import { resetSequences } from '../../src/seed/common.js';
import { bombPng } from '../media/helpers.js';
import { renderTimeBomb } from '../media/svg-bombs.js';
import { waitUntil } from '../support/wait.js';
import { startUploadHarness, type UploadHarness } from './harness.js';

const TAGS = 'safe, solo, pony';
const EMPTY = { images: [], interactions: [], total: 0 };

let h: UploadHarness;
let key: string;
let seq = 0;

/** A distinct PNG each call, noisy enough that a cut leaves rows undecoded. */
async function freshPng(width = 120, height = 90): Promise<Buffer> {
  seq++;
  const noise = Buffer.alloc(width * height * 3);
  for (let i = 0; i < noise.length; i++) noise[i] = (i * 7919 + seq * 104_729) % 251;
  return sharp(noise, { raw: { width, height, channels: 3 } }).png().toBuffer();
}

async function servedPng(): Promise<string> {
  return h.serve(`/hard-${++seq}.png`, { body: await freshPng() });
}

const reverse = (query: string, init: RequestInit = {}) => h.api(`/search/reverse${query}`, { method: 'POST', ...init });

beforeAll(async () => {
  h = await startUploadHarness({ search: true });
  key = h.uploader.key;
});

afterAll(async () => {
  await h?.close();
});

describe('tag input', () => {
  it('refuses more than 1,000 tags with a tag_input error, before creating any', async () => {
    const names = Array.from({ length: 13_106 }, (_, i) => `hardening new tag ${i}`);
    const before = await h.db.select({ n: sql<number>`count(*)::int` }).from(s.tags);
    const res = await h.submit(key, { url: await servedPng(), image: { tag_input: `safe, ${names.join(', ')}` } });
    expect(res).toMatchObject({ status: 400, body: { errors: { tag_input: ['should have at most 1000 tag(s)'] } } });
    const after = await h.db.select({ n: sql<number>`count(*)::int` }).from(s.tags);
    expect(after).toEqual(before);
    expect(h.requested.filter((p) => p.startsWith('/hard-'))).toHaveLength(0);
  });

  it('accepts 1,000 tags, most of them new', async () => {
    const names = ['safe', ...Array.from({ length: 999 }, (_, i) => `thousand tag ${i}`)];
    const res = await h.submit(key, { url: await servedPng(), image: { tag_input: names.join(', ') } });
    expect(res.status).toBe(200);
    expect(res.body.image.tag_count).toBe(1000);
  });

  it('creates very many tags in batches (no parameter limit)', async () => {
    const names = Array.from({ length: 14_000 }, (_, i) => `batched tag ${i}`);
    const rows = await h.db.transaction((tx) => getOrCreateTags(tx, names, { implications: false }));
    expect(rows.map((t) => t.name)).toEqual(names);
  });
});

describe('the whole file must decode', () => {
  it('refuses a truncated PNG and a truncated JPEG with errors.image, leaving no row', async () => {
    const png = await freshPng(400, 300);
    const jpeg = await sharp(await freshPng(400, 300)).jpeg().toBuffer();
    const count = async () => (await h.db.select({ n: sql<number>`count(*)::int` }).from(s.images))[0]!.n;
    const before = await count();
    for (const [name, bytes] of [['cut.png', png.subarray(0, Math.floor(png.length * 0.8))], ['cut.jpg', jpeg.subarray(0, Math.floor(jpeg.length * 0.8))]] as const) {
      const res = await h.submit(key, { url: h.serve(`/${name}`, { body: bytes }), image: { tag_input: TAGS } });
      expect(res.body, name).toEqual({ errors: { image: ['contents corrupt, not recognized, or dimensions are too large to process'] } });
    }
    expect(await count()).toBe(before);
  });
});

describe('the pixel limit', () => {
  it('refuses a 16000×16000 PNG (249 KB) on image_width and image_height; a reverse search with it finds nothing', async () => {
    const bomb = bombPng(16_000, 16_000, true);
    const message = 'must be at most 100000000 pixels (width × height)';
    const res = await h.submit(key, { url: h.serve('/bomb-16k.png', { body: bomb }), image: { tag_input: TAGS } });
    expect(res.body).toEqual({ errors: { image_height: [message], image_width: [message] } });
    const search = await reverse(`?url=${encodeURIComponent(h.serve('/bomb-16k-search.png', { body: bomb }))}`);
    expect(search).toMatchObject({ status: 200, body: EMPTY });
  });

  it('refuses a bomb from its first bytes: a download that stalls after its header, a file of which only the header is sent', async () => {
    const bomb = bombPng(16_000, 16_000, true);
    const message = 'must be at most 100000000 pixels (width × height)';
    const submitted = await h.submit(key, { url: h.serve('/bomb-stalls.png', { body: bomb, stallAfter: 64 }), image: { tag_input: TAGS } });
    expect(submitted).toMatchObject({ status: 400, body: { errors: { image_height: [message], image_width: [message] } } });
    const byUrl = await reverse(`?url=${encodeURIComponent(h.serve('/bomb-stalls-search.png', { body: bomb, stallAfter: 64 }))}`);
    expect(byUrl).toMatchObject({ status: 200, body: EMPTY });
    expect(byUrl.headers.get('warning')).toBe('199 tagwise "image not readable"');

    // The multipart body declares its whole length; only the part's headers and the PNG's first 64 bytes are sent.
    const head = Buffer.from('--b\r\nContent-Disposition: form-data; name="image"; filename="bomb.png"\r\nContent-Type: image/png\r\n\r\n');
    const tail = Buffer.from('\r\n--b--\r\n');
    const url = new URL(h.url);
    const answer = await new Promise<{ status: number; warning: unknown; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: url.hostname, port: url.port, method: 'POST', path: '/api/v1/json/search/reverse', headers: { 'content-type': 'multipart/form-data; boundary=b', 'content-length': String(head.length + bomb.length + tail.length) } },
        (res) => {
          let body = '';
          res.on('data', (c: Buffer) => {
            body += c.toString();
          });
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, warning: res.headers.warning, body });
            req.destroy();
          });
        },
      );
      req.on('error', reject);
      req.write(Buffer.concat([head, bomb.subarray(0, 64)]));
      // the rest is never sent
    });
    expect(answer).toEqual({ status: 200, warning: '199 tagwise "image not readable"', body: JSON.stringify(EMPTY) });

    // Sent whole, twice on one keep-alive connection: the unread rest is dropped and the next request is served.
    for (let i = 0; i < 2; i++) {
      const form = new FormData();
      form.set('image', new Blob([new Uint8Array(bomb)], { type: 'image/png' }), 'bomb.png');
      const res = await reverse('', { body: form });
      expect(res).toMatchObject({ status: 200, body: EMPTY });
    }
  });

  it('accepts an image just under it', async () => {
    const res = await h.submit(key, { url: h.serve('/wide.png', { body: bombPng(20_000, 5_000, true) }), image: { tag_input: TAGS } });
    expect(res.status).toBe(200);
    expect(res.body.image).toMatchObject({ width: 20_000, height: 5_000 });
  });
});

describe('the decode queue', () => {
  it('answers 503 with Retry-After and a JSON error to submissions and reverse searches while it is full', async () => {
    // Render bombs (svg-bombs.ts) hold every slot and the whole waiting room until the deadline.
    const { size, maxWaiting } = requestDecodes.options;
    const bomb = renderTimeBomb();
    const holding = new AbortController();
    const holders = Array.from({ length: size + maxWaiting }, () => requestDecodes.run('intake', bomb, {}, holding.signal).catch(() => null));
    await waitUntil('a full waiting room', () => requestDecodes.waiting === maxWaiting, 5_000, 20);
    try {
      const submitted = await h.submit(key, { url: await servedPng(), image: { tag_input: TAGS } });
      expect(submitted.status).toBe(503);
      expect(submitted.headers.get('retry-after')).toBe('2');
      expect(submitted.body).toEqual({ error: 'Too many images are being decoded; retry shortly' });
      const searched = await reverse(`?url=${encodeURIComponent(await servedPng())}`);
      expect(searched.status).toBe(503);
      expect(searched.body).toEqual({ error: 'Too many images are being decoded; retry shortly' });
    } finally {
      holding.abort();
      await Promise.all(holders);
    }
    expect([requestDecodes.active, requestDecodes.waiting]).toEqual([0, 0]);
    const again = await h.submit(key, { url: await servedPng(), image: { tag_input: TAGS } });
    expect(again.status).toBe(200);
    expect(h.logged).toEqual([]);
  });
});

describe('reverse search bodies', () => {
  it('refuses a JSON or form body over 8 KiB with 413, a file body up to the upload limit is read', async () => {
    const json = await reverse('', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'x', pad: 'a'.repeat(9000) }) });
    expect(json).toMatchObject({ status: 413, body: { error: 'Request body too large' } });
    const form = await reverse('', { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `url=x&pad=${'a'.repeat(9000)}` });
    expect(form.status).toBe(413);
    const small = await reverse('', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url: 'x' }) });
    expect(small).toMatchObject({ status: 200, body: EMPTY });
    const multipart = new FormData();
    multipart.set('image', new Blob([new Uint8Array(await freshPng(300, 300))], { type: 'image/png' }), 'a.png');
    expect((await reverse('', { body: multipart })).status).toBe(200);
  });

  it('refuses a body declared as 130 MB at once, without waiting for it', async () => {
    const url = new URL(h.url);
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ host: url.hostname, port: url.port, method: 'POST', path: '/api/v1/json/search/reverse', headers: { 'content-type': 'application/json', 'content-length': String(130 * 1024 * 1024) } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => {
          body += c.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.write('{"url":"');
      // the rest is never sent
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: 'Request body too large' });
  });
});

describe('id sequences', () => {
  it('a sequence reset beside an uncommitted tag does not move backwards; the next upload keeps every tag', async () => {
    // An upload creating a tag, not yet committed, while an import resets the sequences.
    let commit!: () => void;
    const committed = new Promise<void>((r) => {
      commit = r;
    });
    let created!: () => void;
    const inserted = new Promise<void>((r) => {
      created = r;
    });
    const upload = h.db.transaction(async (tx) => {
      await tx.insert(s.tags).values({ name: 'in flight tag', slug: 'in+flight+tag', nameInNamespace: 'in flight tag' });
      created();
      await committed;
    });
    await inserted;
    await h.db.transaction((tx) => resetSequences(tx));
    commit();
    await upload;

    const res = await h.submit(key, { url: await servedPng(), image: { tag_input: `${TAGS}, tag after the reset` } });
    expect(res.status).toBe(200);
    expect(res.body.image.tags).toContain('tag after the reset');
    const [row] = await h.db.select().from(s.tags).where(eq(s.tags.name, 'tag after the reset'));
    expect(row).toBeDefined();
  });
});
