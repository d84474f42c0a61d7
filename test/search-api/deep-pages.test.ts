/**
 * Deep pages: there is no 10,000-hit window. On a board of 10,060 images, the pages past the
 * 10,000th hit are the right images in the right order, and the page after the last is empty
 * with the real total.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertFilter } from '../http/harness.js';
import { idsOf, qs, startSearchHarness, type SearchHarness } from './harness.js';

const N = 10_060;

let h: SearchHarness;

beforeAll(async () => {
  h = await startSearchHarness();
  await insertFilter(h.db, { name: 'Default', system: true });
  // one statement, outbox skipped: the reindex below builds every document
  await h.db.$client.begin(async (tx) => {
    await tx`set local tagwise.skip_outbox = on`;
    await tx`
      insert into images (image_name, image_format, image_mime_type, image_width, image_height, score,
                          processed, thumbnails_generated, first_seen_at)
      select 'deep.png', 'png', 'image/png', 100, 100, (g * 37) % 101, true, true,
             timestamptz '2024-01-01T00:00:00Z' + ((g * 7919) % ${N}) * interval '1 second'
      from generate_series(1, ${N}) g`;
  });
  await h.reindex();
}, 180_000);

afterAll(async () => {
  await h?.close();
});

async function expected(orderBy: string, offset: number, limit: number): Promise<number[]> {
  const rows = await h.db.$client.unsafe<{ id: number }[]>(`select id from images order by ${orderBy} offset ${offset} limit ${limit}`);
  return rows.map((r) => r.id);
}

describe('deep pages', () => {
  it('page 201 and 202 of 50 (hits 10,001 to 10,060) in the default order', async () => {
    const p201 = await h.ok(`/search/images${qs({ q: '*', per_page: 50, page: 201 })}`);
    expect(p201.total).toBe(N);
    expect(idsOf(p201.images)).toEqual(await expected('first_seen_at desc, id desc', 10_000, 50));
    const p202 = await h.ok(`/search/images${qs({ q: '*', per_page: 50, page: 202 })}`);
    expect(idsOf(p202.images)).toEqual(await expected('first_seen_at desc, id desc', 10_050, 50));
    expect(p202.images).toHaveLength(10);
    expect(await h.ok(`/search/images${qs({ q: '*', per_page: 50, page: 203 })}`)).toEqual({ images: [], interactions: [], total: N });
  });

  it('deep pages of other sorts, both directions', async () => {
    const score = await h.ok(`/search/images${qs({ q: '*', per_page: 25, page: 401, sf: 'score', sd: 'asc' })}`);
    expect(idsOf(score.images)).toEqual(await expected('score asc, id asc', 10_000, 25));
    const ids = await h.ok(`/search/images${qs({ q: '*', per_page: 7, page: 1437, sf: 'id', sd: 'desc' })}`);
    expect(idsOf(ids.images)).toEqual(await expected('id desc', 7 * 1436, 7));
  });

  it('deep pages of a random order are the tail of the same order', async () => {
    const all: number[] = [];
    const head = await h.ok(`/search/images${qs({ q: '*', per_page: 50, page: 200, sf: 'random:99' })}`);
    const tail = await h.ok(`/search/images${qs({ q: '*', per_page: 50, page: 202, sf: 'random:99' })}`);
    all.push(...idsOf(head.images), ...idsOf(tail.images));
    expect(tail.images).toHaveLength(10);
    expect(new Set(all).size).toBe(60);
    const again = await h.ok(`/search/images${qs({ q: '*', per_page: 10, page: 1006, sf: 'random:99' })}`);
    expect(idsOf(again.images)).toEqual(idsOf(tail.images));
  });
});
