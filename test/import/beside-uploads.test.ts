/**
 * An import running beside live uploads: the import writes rows with explicit ids and moves the id
 * sequences afterwards, while submissions create tags and images from the same sequences. Every
 * submission must be answered (no 500) and keep every tag it named; every import must succeed.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as s from '../../src/db/schema/index.js';
import { importBoard } from '../../src/import/api-json/index.js';
import { startUploadHarness, type UploadHarness } from '../upload/harness.js';

let h: UploadHarness;
let key: string;

beforeAll(async () => {
  h = await startUploadHarness();
  key = h.uploader.key;
});

afterAll(async () => {
  await h?.close();
});

const UPLOADS = 40;
const IMPORTS = 12;

async function png(n: number): Promise<Buffer> {
  return sharp({ create: { width: 20 + (n % 40), height: 20 + Math.floor(n / 40), channels: 3, background: { r: n % 256, g: 40, b: 200 } } })
    .png()
    .toBuffer();
}

describe('an import beside uploads', () => {
  it('answers every upload, loses no tag, and every import succeeds', async () => {
    // A board whose tag ids start at the current maximum: re-imported over and over, its final
    // sequence reset runs while submissions hold fresh ids in open transactions.
    const [{ max } = { max: 0 }] = await h.db.execute<{ max: number }>(sql`select coalesce(max(id), 0)::int as max from tags`);
    const board = { tags: Array.from({ length: 50 }, (_, i) => ({ id: Number(max) + 1 + i, name: `imported tag ${i}` })) };

    const statuses: number[] = [];
    const named = new Map<number, string[]>();
    let uploading = true;
    const uploads = (async () => {
      for (let n = 0; n < UPLOADS; n++) {
        const tags = [`beside import ${n} a`, `beside import ${n} b`];
        const url = h.serve(`/beside-${n}.png`, { body: await png(n) });
        const res = await h.submit(key, { url, image: { tag_input: `safe, solo, ${tags.join(', ')}` } });
        statuses.push(res.status);
        if (res.status === 200) named.set(res.body.image.id, tags);
      }
      uploading = false;
    })();
    const parallel = (async () => {
      // A second writer so that two submissions overlap an import's sequence reset too.
      for (let n = UPLOADS; n < UPLOADS * 1.5 && uploading; n++) {
        const tags = [`beside import ${n} a`];
        const url = h.serve(`/beside-${n}.png`, { body: await png(n) });
        const res = await h.submit(key, { url, image: { tag_input: `safe, solo, pony, ${tags[0]}` } });
        statuses.push(res.status);
        if (res.status === 200) named.set(res.body.image.id, tags);
      }
    })();
    const imports: string[] = [];
    for (let i = 0; i < IMPORTS; i++) {
      await importBoard(h.db, board).then(
        () => imports.push('ok'),
        (error: unknown) => imports.push(String(error)),
      );
    }
    await Promise.all([uploads, parallel]);

    expect(imports).toEqual(Array.from({ length: IMPORTS }, () => 'ok'));
    expect(statuses.filter((st) => st !== 200)).toEqual([]);
    const ids = [...named.keys()];
    const rows = await h.db
      .select({ imageId: s.imageTaggings.imageId, name: s.tags.name })
      .from(s.imageTaggings)
      .innerJoin(s.tags, eq(s.tags.id, s.imageTaggings.tagId))
      .where(inArray(s.imageTaggings.imageId, ids));
    const stored = new Map<number, Set<string>>();
    for (const r of rows) (stored.get(r.imageId) ?? stored.set(r.imageId, new Set()).get(r.imageId)!).add(r.name);
    const lost = [...named].flatMap(([id, tags]) => tags.filter((t) => !stored.get(id)?.has(t)).map((t) => `${id}: ${t}`));
    expect(lost).toEqual([]);
    expect(h.logged).toEqual([]);
  }, 240_000);
});
