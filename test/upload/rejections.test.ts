/**
 * Everything POST /images refuses, over real HTTP: authentication, bans, content type, malformed
 * bodies, unsafe or failing URLs, oversize and hostile files, unsupported formats, duplicates, and
 * each validation rule with the reference's messages. Also the abuse limits.
 */
import { eq, inArray } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { unban } from '../../src/contexts/users/bans.js';
import { insertImage, insertTag } from '../http/harness.js';
import { bombPng } from '../media/helpers.js';
import { startUploadHarness, userWithKey, type UploadHarness } from './harness.js';

const MAX_BYTES = 300_000;
const TAGS = 'safe, solo, pony';

const BLANK = ["can't be blank"];
const NO_FILE = {
  image: ['contents corrupt, not recognized, or dimensions are too large to process', "can't be blank"],
  image_aspect_ratio: BLANK,
  image_duration: BLANK,
  image_format: BLANK,
  image_height: BLANK,
  image_is_animated: BLANK,
  image_mime_type: BLANK,
  image_orig_sha512_hash: BLANK,
  image_orig_size: BLANK,
  image_sha512_hash: BLANK,
  image_size: BLANK,
  image_width: BLANK,
  uploaded_image: BLANK,
};

let h: UploadHarness;
let key: string;
let seq = 0;

/** A distinct small PNG each call (different bytes, so never a duplicate). */
async function freshPng(): Promise<Buffer> {
  seq++;
  return sharp({ create: { width: 40 + (seq % 50), height: 30 + Math.floor(seq / 50), channels: 3, background: { r: seq % 256, g: 90, b: 30 } } })
    .png()
    .toBuffer();
}

async function servedPng(): Promise<string> {
  return h.serve(`/fresh-${++seq}.png`, { body: await freshPng() });
}

function bmp(width: number, height: number): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const size = 54 + row * height;
  const b = Buffer.alloc(size);
  b.write('BM', 0, 'latin1');
  b.writeUInt32LE(size, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(width, 18);
  b.writeInt32LE(height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  b.writeUInt32LE(row * height, 34);
  return b;
}

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

beforeAll(async () => {
  h = await startUploadHarness({ upload: { maxBytes: MAX_BYTES } });
  key = h.uploader.key;
});

afterAll(async () => {
  await h?.close();
});

describe('authentication, bans and the request itself', () => {
  it('401 with a JSON body without a key or with an unknown key', async () => {
    const body = { url: await servedPng(), image: { tag_input: TAGS } };
    for (const k of [null, 'not-a-key']) {
      const res = await h.submit(k, body);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Unauthorized' });
    }
  });

  it('415 unless the body is application/json', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const res = await h.api(`/images?key=${key}`, { method: 'POST', headers: { 'content-type': type }, body: '{}' });
      expect(res.status, type).toBe(415);
      expect(res.body).toEqual({ error: 'Content-Type must be application/json' });
    }
    const res = await h.submit(key, { url: await servedPng(), image: { tag_input: TAGS } }, { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.status).toBe(200);
  });

  it('400 {"error"} for malformed JSON, 400 {"errors"} for fields of the wrong type', async () => {
    const bad = await h.submit(key, '{"url": ');
    expect(bad).toMatchObject({ status: 400, body: { error: 'Malformed JSON body' } });
    const typed = await h.submit(key, { url: 5, image: { tag_input: ['safe'], description: 'ok' } });
    expect(typed).toMatchObject({ status: 400, body: { errors: { url: ['is invalid'], tag_input: ['is invalid'] } } });
    const notObject = await h.submit(key, '[1,2]');
    expect(notObject.status).toBe(400);
    expect(notObject.body.errors).toBeDefined();
  });

  it('413 for a JSON body over 1 MiB', async () => {
    const res = await h.submit(key, { url: 'https://example.com/a.png', image: { description: 'x'.repeat(1_100_000) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: 'Request body too large' });
  });

  it('403 with the reason and the expiry for a banned user; a permanent ban says so', async () => {
    const banned = await userWithKey(h.db);
    const until = new Date(Date.now() + 3_600_000);
    await h.db.insert(s.bans).values({ userId: banned.user.id, reason: 'Spamming uploads', validUntil: until });
    const res = await h.submit(banned.key, { url: await servedPng(), image: { tag_input: TAGS } });
    expect(res.status).toBe(403);
    const iso = `${until.toISOString().slice(0, 19)}Z`;
    expect(res.body).toEqual({ error: 'Banned: Spamming uploads', reason: 'Spamming uploads', expires_at: iso });

    const forever = await userWithKey(h.db);
    await h.db.insert(s.bans).values({ userId: forever.user.id, reason: 'Rule 1' });
    const res2 = await h.submit(forever.key, { url: await servedPng(), image: { tag_input: TAGS } });
    expect(res2).toMatchObject({ status: 403, body: { error: 'Banned: Rule 1', reason: 'Rule 1', expires_at: null } });

    const expired = await userWithKey(h.db);
    await h.db.insert(s.bans).values({ userId: expired.user.id, reason: 'old', validUntil: new Date(Date.now() - 1000) });
    expect((await h.submit(expired.key, { url: await servedPng(), image: { tag_input: TAGS } })).status).toBe(200);
  });

  it('403 for a banned IP (the whole range), for every user', async () => {
    const [ban] = await h.db.insert(s.bans).values({ ip: '127.0.0.0/8', reason: 'Open proxy', validUntil: new Date(Date.now() + 60_000) }).returning();
    try {
      const res = await h.submit(key, { url: await servedPng(), image: { tag_input: TAGS } });
      expect(res.status).toBe(403);
      expect(res.body.reason).toBe('Open proxy');
    } finally {
      await h.db.update(s.bans).set({ enabled: false }).where(eq(s.bans.id, ban!.id));
    }
    // Ban lookups are cached for a few seconds per caller: a lifted ban ends within that.
    await expect
      .poll(async () => (await h.submit(key, { url: await servedPng(), image: { tag_input: TAGS } })).status, { timeout: 20_000, interval: 1_000 })
      .toBe(200);
  }, 60_000);
});

describe('fetching the URL', () => {
  it('refuses an http URL without making a request', async () => {
    const before = h.requested.length;
    const res = await h.submit(key, { url: h.serve('/plain.png', { body: await freshPng() }).replace('https:', 'http:'), image: { tag_input: TAGS } });
    expect(res).toMatchObject({ status: 400, body: { errors: { image: ['url must use https'] } } });
    expect(h.requested.length).toBe(before);
  });

  it('refuses private, loopback and link-local addresses, by literal or by name', async () => {
    const port = h.files.hostPort.split(':')[1];
    const before = h.requested.length;
    for (const url of ['https://10.0.0.1/a.png', 'https://192.168.1.1/a.png', 'https://169.254.169.254/latest/meta-data', 'https://[::1]/a.png', `https://localhost:${port}/a.png`]) {
      const res = await h.submit(key, { url, image: { tag_input: TAGS } });
      expect(res.status, url).toBe(400);
      expect(res.body, url).toEqual({ errors: { image: ['url points to an address that is not allowed'] } });
    }
    expect(h.requested.length).toBe(before);
  });

  it('refuses a redirect to a private address', async () => {
    const port = h.files.hostPort.split(':')[1];
    for (const [path, location] of [['/to-metadata', 'https://169.254.169.254/latest/meta-data'], ['/to-localhost', `https://localhost:${port}/plain.png`]] as const) {
      const url = h.serve(path, { status: 302, headers: { location } });
      const res = await h.submit(key, { url, image: { tag_input: TAGS } });
      expect(res.body, path).toEqual({ errors: { image: ['url points to an address that is not allowed'] } });
    }
  });

  it('reports a failing URL', async () => {
    const res = await h.submit(key, { url: `${h.files.origin}/nothing-here.png`, image: { tag_input: TAGS } });
    expect(res.body).toEqual({ errors: { image: ['url answered with status 404'] } });
    const bad = await h.submit(key, { url: 'not a url', image: { tag_input: TAGS } });
    expect(bad.body).toEqual({ errors: { image: ['url is not a valid URL'] } });
  });

  it('refuses a body larger than the configured cap, declared or not', async () => {
    const big = await sharp({ create: { width: 400, height: 400, channels: 3, background: '#000000', noise: { type: 'gaussian', mean: 128, sigma: 60 } } }).png().toBuffer();
    expect(big.length).toBeGreaterThan(MAX_BYTES);
    const declared = h.serve('/big.png', { body: big });
    expect((await h.submit(key, { url: declared, image: { tag_input: TAGS } })).body).toEqual({ errors: { image_size: [`must be less than or equal to ${MAX_BYTES}`] } });
    const chunked = h.serve('/big-chunked.png', { body: big, headers: { 'transfer-encoding': 'chunked' } });
    expect((await h.submit(key, { url: chunked, image: { tag_input: TAGS } })).body).toEqual({ errors: { image_size: [`must be less than or equal to ${MAX_BYTES}`] } });
  });
});

describe('the file', () => {
  it('refuses decompression bombs by their declared dimensions', async () => {
    for (const [name, bytes] of [['bomb-header.png', bombPng(100_000, 100_000, false)], ['bomb-data.png', bombPng(20_000, 20_000, true)]] as const) {
      expect(bytes.length).toBeLessThan(MAX_BYTES);
      const res = await h.submit(key, { url: h.serve(`/${name}`, { body: bytes }), image: { tag_input: TAGS } });
      expect(res.body, name).toEqual({ errors: { image: ['dimensions are too large to process'] } });
    }
  });

  it('refuses a corrupt file', async () => {
    const jpeg = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#335577' } }).jpeg().toBuffer();
    const truncated = jpeg.subarray(0, 60);
    const res = await h.submit(key, { url: h.serve('/corrupt.jpg', { body: truncated }), image: { tag_input: TAGS } });
    expect(res.body).toEqual({ errors: { image: ['contents corrupt, not recognized, or dimensions are too large to process'] } });
    // Bytes no decoder recognises are an unsupported type.
    const png = await freshPng();
    const garbled = Buffer.concat([png.subarray(0, 16), Buffer.alloc(64, 0xee)]);
    const res2 = await h.submit(key, { url: h.serve('/garbled.png', { body: garbled }), image: { tag_input: TAGS } });
    expect(res2.body).toEqual({ errors: { ...NO_FILE, image_mime_type: ['(application/octet-stream) is invalid'] } });
  });

  it('refuses unsupported formats (BMP, PDF, text) with the reference error map', async () => {
    for (const [name, bytes, mime] of [
      ['a.bmp', bmp(20, 10), 'image/bmp'],
      ['a.pdf', PDF, 'application/pdf'],
      ['a.txt', Buffer.from('hello, this is text\n'), 'text/plain'],
    ] as const) {
      const res = await h.submit(key, { url: h.serve(`/${name}`, { body: bytes }), image: { tag_input: TAGS } });
      expect(res.status, name).toBe(400);
      expect(res.body, name).toEqual({ errors: { ...NO_FILE, image_mime_type: [`(${mime}) is invalid`] } });
    }
  });

  it('answers the exact no-file map when there is no url, with other errors beside it', async () => {
    const res = await h.submit(key, { image: { tag_input: TAGS } });
    expect(res).toEqual({ status: 400, headers: expect.anything(), body: { errors: NO_FILE } });
    const empty = await h.submit(key, { url: h.serve('/empty.png', { body: Buffer.alloc(0) }), image: { tag_input: 'solo' } });
    expect(empty.body.errors).toEqual({ ...NO_FILE, tag_input: ['must contain at least one rating tag', 'must contain at least 3 tags'] });
  });

  it('refuses a duplicate, naming the existing image; simultaneous duplicates: exactly one wins', async () => {
    const png = await freshPng();
    const first = await h.submit(key, { url: h.serve('/dup-1.png', { body: png }), image: { tag_input: TAGS } });
    expect(first.status).toBe(200);
    const again = await h.submit(key, { url: h.serve('/dup-2.png', { body: png }), image: { tag_input: 'safe, pony, solo, other' } });
    expect(again).toMatchObject({ status: 400, body: { errors: { image_orig_sha512_hash: [`has already been taken: it's image ${first.body.image.id}`] } } });

    const racing = await freshPng();
    const url = h.serve('/race.png', { body: racing });
    const results = await Promise.all(Array.from({ length: 4 }, () => h.submit(key, { url, image: { tag_input: TAGS } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400, 400]);
    const winner = results.find((r) => r.status === 200)!.body.image.id;
    for (const r of results.filter((x) => x.status === 400)) {
      expect(r.body).toEqual({ errors: { image_orig_sha512_hash: [`has already been taken: it's image ${winner}`] } });
    }
  });

  it('leaves nothing behind when a submission is refused: no row, no file, no new tag', async () => {
    const countImages = async () => (await h.db.select({ id: s.images.id }).from(s.images)).length;
    const before = await countImages();
    const res = await h.submit(key, { url: await servedPng(), image: { tag_input: 'solo, brand new tag' } });
    expect(res.status).toBe(400);
    expect(await countImages()).toBe(before);
    expect(await h.db.select().from(s.tags).where(eq(s.tags.name, 'brand new tag'))).toEqual([]);
  });
});

describe('validation rules and messages', () => {
  const tagCases: Array<[string, string[]]> = [
    ['solo', ['must contain at least one rating tag', 'must contain at least 3 tags']],
    ['', ['must contain at least one rating tag', 'must contain at least 3 tags']],
    ['safe, solo, safe, SAFE', ['must contain at least 3 tags']],
    ['pony, solo, oc', ['must contain at least one rating tag']],
    ['safe, explicit, solo', ['may not contain any other rating if safe']],
    ['suggestive, explicit, solo', ['may contain at most one sexual rating']],
    ['semi-grimdark, grimdark, solo', ['may contain at most one grim rating']],
    ['safe, grimdark, questionable, explicit', ['may contain at most one sexual rating', 'may not contain any other rating if safe']],
    ['safe, solo, tagme', ["contains forbidden tag `tagme'"]],
    ['tagme, solo', ['must contain at least one rating tag', "contains forbidden tag `tagme'", 'must contain at least 3 tags']],
  ];
  for (const [input, messages] of tagCases) {
    it(`tag_input ${JSON.stringify(input)} → ${JSON.stringify(messages)}`, async () => {
      const res = await h.submit(key, { url: await servedPng(), image: { tag_input: input } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ errors: { tag_input: messages } });
    });
  }

  it('applies the tag rules after aliases', async () => {
    const safe = (await h.db.select().from(s.tags).where(eq(s.tags.name, 'safe')))[0]!;
    await insertTag(h.db, 'sfw', { aliasedTagId: safe.id });
    const res = await h.submit(key, { url: await servedPng(), image: { tag_input: 'sfw, safe, solo' } });
    expect(res.body).toEqual({ errors: { tag_input: ['must contain at least 3 tags'] } });
  });

  it('description at most 50,000 bytes; source_url and sources ^https?:// and at most 255 characters, at most 15 sources', async () => {
    const url = await servedPng();
    const res = await h.submit(key, {
      url,
      image: {
        tag_input: TAGS,
        description: 'é'.repeat(25_001),
        source_url: 'ftp://example.com/x',
        sources: ['https://ok.example/1', 'javascript:alert(1)', `https://example.com/${'a'.repeat(260)}`],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: {
        description: ['should be at most 50000 byte(s)'],
        source_url: ['has invalid format'],
        sources: [{}, { source: ['has invalid format'] }, { source: ['should be at most 255 character(s)'] }],
      },
    });
    const many = await h.submit(key, { url, image: { tag_input: TAGS, sources: Array.from({ length: 16 }, (_, i) => `https://example.com/${i}`) } });
    expect(many.body).toEqual({ errors: { sources: ['should have at most 15 item(s)'] } });
    const exact = await h.submit(key, { url, image: { tag_input: TAGS, description: 'é'.repeat(25_000), sources: Array.from({ length: 15 }, (_, i) => `https://example.com/${i}`) } });
    expect(exact.status, JSON.stringify(exact.body)).toBe(200);
    expect(exact.body.image.source_urls).toHaveLength(15);
  });

  it('collects the errors of every field at once', async () => {
    const res = await h.submit(key, { url: 'http://example.com/a.png', image: { tag_input: 'solo', source_url: 'nope' } });
    expect(res.body).toEqual({
      errors: {
        image: ['url must use https'],
        source_url: ['has invalid format'],
        tag_input: ['must contain at least one rating tag', 'must contain at least 3 tags'],
      },
    });
  });

  it('DNP: Artist Upload Only refuses other uploaders, not the verified artist; No Edits only with the edit tag', async () => {
    const artist = await insertTag(h.db, 'artist:dnp artist', { category: 'origin' });
    const editor = await insertTag(h.db, 'artist:no edits please', { category: 'origin' });
    await h.db.insert(s.dnpEntries).values([
      { tagId: artist.id, dnpType: 'Artist Upload Only' },
      { tagId: editor.id, dnpType: 'No Edits' },
    ]);
    const refused = await h.submit(key, { url: await servedPng(), image: { tag_input: `${TAGS}, artist:dnp artist` } });
    expect(refused.body).toEqual({ errors: { image: ['DNP (Artist Upload Only)'] } });

    const owner = await userWithKey(h.db);
    await h.db.insert(s.userLinks).values({ userId: owner.user.id, tagId: artist.id, uri: 'https://art.example', state: 'verified' });
    expect((await h.submit(owner.key, { url: await servedPng(), image: { tag_input: `${TAGS}, artist:dnp artist` } })).status).toBe(200);

    expect((await h.submit(key, { url: await servedPng(), image: { tag_input: `${TAGS}, artist:no edits please` } })).status).toBe(200);
    const edit = await h.submit(key, { url: await servedPng(), image: { tag_input: `${TAGS}, artist:no edits please, edit` } });
    expect(edit.body).toEqual({ errors: { image: ['DNP (No Edits)'] } });
  });
});

describe('abuse limits', () => {
  it('per-key and per-IP submission rate: 429 with Retry-After, then an automatic ban', async () => {
    const limited = await startUploadHarness({ env: { RATE_LIMIT_UPLOAD: '2/1h', BAN_AFTER_VIOLATIONS: '3', BAN_SECONDS: '600' } });
    try {
      const a = limited.uploader;
      const b = await userWithKey(limited.db);
      const attempt = (k: string) => limited.submit(k, { url: 'http://example.com/a.png', image: { tag_input: TAGS } });
      expect((await attempt(a.key)).status).toBe(400);
      expect((await attempt(a.key)).status).toBe(400);
      const third = await attempt(a.key);
      expect(third.status).toBe(429);
      expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(third.body.error).toMatch(/^Too many submissions/);
      // Another key from the same address: the address's budget is spent too.
      expect((await attempt(b.key)).status).toBe(429);
      // Keeping on: the third refusal within the window becomes a temporary ban.
      expect((await attempt(a.key)).status).toBe(429);
      const banned = await attempt(a.key);
      expect(banned.status).toBe(403);
      expect(banned.body.reason).toMatch(/Too many requests/);
      const bans = await limited.db.select().from(s.bans).where(eq(s.bans.automatic, true));
      expect(bans.length).toBeGreaterThanOrEqual(1);
      expect((await attempt(a.key)).status).toBe(403);
    } finally {
      await limited.close();
    }
  });

  it("submissions go through the app's one limiter: a ban they earn is every route's at once, and a lifted ban stops refusing them at once", async () => {
    const limited = await startUploadHarness({ env: { RATE_LIMIT_UPLOAD: '1/1h', BAN_AFTER_VIOLATIONS: '2', BAN_SECONDS: '600' } });
    try {
      const a = limited.uploader;
      const attempt = () => limited.submit(a.key, { url: 'http://example.com/a.png', image: { tag_input: TAGS } });
      expect((await attempt()).status).toBe(400);
      expect((await attempt()).status).toBe(429);
      const banned = await attempt();
      expect(banned.status).toBe(403);
      expect(banned.body.reason).toMatch(/Too many requests/);
      // the read API refuses the same caller at once
      const read = await limited.api(`/images/1?key=${a.key}`);
      expect(read.status).toBe(403);
      expect(read.body.reason).toMatch(/Too many requests/);

      // An operator lifts the ban; once the app has heard of it (the feed's barrier), submissions
      // meet only the spent budget. A limiter of the route's own, with a ban cache that does not
      // hear the feed, kept refusing them as banned for its cache's five seconds.
      const [ban] = await limited.db.select().from(s.bans).where(eq(s.bans.userId, a.user.id));
      await unban(limited.db, ban!.id);
      await limited.deps.caches.feed.sync();
      const after = await attempt();
      expect(after.status).toBe(429);
      expect(after.body.error).toMatch(/^Too many submissions/);
      expect((await limited.api(`/images/1?key=${a.key}`)).status).toBe(404);
    } finally {
      await limited.close();
    }
  });

  it('a daily cap per user, counted from the images of the last 24 hours', async () => {
    const capped = await startUploadHarness({ env: { UPLOAD_DAILY_CAP: '2' } });
    try {
      const u = capped.uploader;
      await insertImage(capped.db, { values: { userId: u.user.id, createdAt: new Date(Date.now() - 2 * 86_400_000), imageOrigSha512Hash: 'old' } });
      await insertImage(capped.db, { values: { userId: u.user.id, imageOrigSha512Hash: 'recent' } });
      const png = await sharp({ create: { width: 20, height: 20, channels: 3, background: '#010203' } }).png().toBuffer();
      const ok = await capped.submit(u.key, { url: capped.serve('/a.png', { body: png }), image: { tag_input: TAGS } });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      const over = await capped.submit(u.key, { url: capped.serve('/a.png', { body: png }), image: { tag_input: TAGS } });
      expect(over.status).toBe(429);
      expect(over.body).toEqual({ error: 'Daily limit of 2 submissions reached' });
      const wait = Number(over.headers.get('retry-after'));
      expect(wait).toBeGreaterThan(86_000);
      expect(wait).toBeLessThanOrEqual(86_400);
      const other = await userWithKey(capped.db);
      const png2 = await sharp({ create: { width: 21, height: 20, channels: 3, background: '#010203' } }).png().toBuffer();
      expect((await capped.submit(other.key, { url: capped.serve('/b.png', { body: png2 }), image: { tag_input: TAGS } })).status).toBe(200);
      const ids = (await capped.db.select({ id: s.images.id }).from(s.images).where(inArray(s.images.userId, [u.user.id]))).length;
      expect(ids).toBe(3);
    } finally {
      await capped.close();
    }
  });
});
