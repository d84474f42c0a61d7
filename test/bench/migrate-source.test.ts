/**
 * The migrate benchmark's source: a Philomena-shaped database of the size asked, with tags per
 * image, tag popularity and counters as the benchmark's header promises. Measured here with plain
 * SQL over the generated rows.
 */
import { randomBytes } from 'node:crypto';
import postgres, { type Sql } from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { buildPhilomenaSource, sourceShape } from '../../bench/migrate/source.js';

const IMAGES = 4000;
const name = `philomena_source_${randomBytes(4).toString('hex')}`;
let admin: Sql;
let sql: Sql;
let rows: Record<string, number>;

beforeAll(async () => {
  admin = postgres(inject('pgServerUrl'), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(inject('pgServerUrl'));
  url.pathname = `/${name}`;
  sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
  rows = await buildPhilomenaSource(sql, sourceShape(IMAGES), () => {});
}, 120_000);

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  await admin?.unsafe(`drop database if exists ${name} with (force)`);
  await admin?.end({ timeout: 5 });
});

const one = async <T>(query: string): Promise<T> => (await sql.unsafe(query))[0] as T;

describe('the generated Philomena source', () => {
  it('has the asked number of images and rows in every table it reports', async () => {
    expect(rows.images).toBe(IMAGES);
    for (const [table, n] of Object.entries(rows)) {
      expect(n, table).toBeGreaterThan(0);
      expect((await one<{ n: number }>(`select count(*)::int as n from ${table}`)).n, table).toBe(n);
    }
  });

  it('tags images like Derpibooru: median 16 tags, a long tail, one rating each, popular tags on about half the images', async () => {
    const p = await one<{ p50: number; p90: number; p99: number; max: number }>(`
      select percentile_disc(0.5) within group (order by n) as p50, percentile_disc(0.9) within group (order by n) as p90,
             percentile_disc(0.99) within group (order by n) as p99, max(n) as max
      from (select count(*)::int as n from image_taggings group by image_id) c`);
    expect(p.p50).toBeGreaterThanOrEqual(14);
    expect(p.p50).toBeLessThanOrEqual(17);
    expect(p.p90).toBeGreaterThanOrEqual(27);
    expect(p.p90).toBeLessThanOrEqual(36);
    expect(p.p99).toBeGreaterThanOrEqual(45);
    const ratings = await one<{ bad: number }>(`
      select count(*)::int as bad from (
        select i.id from images i left join image_taggings t on t.image_id = i.id and t.tag_id in (select id from tags where category = 'rating')
        group by i.id having count(t.tag_id) <> 1) x`);
    expect(ratings.bad).toBe(0);
    const top = await sql.unsafe<Array<{ name: string; share: number }>>(`
      select t.name, count(*)::float8 / ${IMAGES} as share from image_taggings it join tags t on t.id = it.tag_id
      where t.category is distinct from 'rating' group by t.name order by count(*) desc limit 2`);
    expect(top[0]!.share).toBeGreaterThan(0.35);
    expect(top[0]!.share).toBeLessThan(0.8);
    expect(top[1]!.share).toBeLessThan(top[0]!.share);
  });

  it('keeps counters equal to the rows they count, and hides one image in ten, half of them merged', async () => {
    const c = await one<Record<string, boolean>>(`
      select
        (select sum(faves_count) from images) = (select count(*) from image_faves) as faves,
        (select sum(upvotes_count) from images) = (select count(*) from image_votes where up) as upvotes,
        (select sum(downvotes_count) from images) = (select count(*) from image_votes where not up) as downvotes,
        (select sum(comments_count) from images) = (select count(*) from comments) as comments,
        (select bool_and(score = upvotes_count - downvotes_count) from images) as scores,
        not exists (select 1 from tags t left join (select tag_id, count(*) as n from image_taggings group by tag_id) c on c.tag_id = t.id
          where t.images_count <> coalesce(c.n, 0)) as tag_counts,
        not exists (select 1 from galleries g left join (select gallery_id, count(*) as n from gallery_interactions group by gallery_id) c on c.gallery_id = g.id
          where g.image_count <> coalesce(c.n, 0)) as gallery_sizes,
        not exists (select 1 from images i where duplicate_id is not null and not exists (select 1 from images d where d.id = i.duplicate_id and not d.hidden_from_users)) as merges`);
    expect(c).toEqual({ faves: true, upvotes: true, downvotes: true, comments: true, scores: true, tag_counts: true, gallery_sizes: true, merges: true });
    const h = await one<{ hidden: number; merged: number }>(`select count(*) filter (where hidden_from_users)::int as hidden, count(*) filter (where duplicate_id is not null)::int as merged from images`);
    expect(h.hidden).toBe(IMAGES / 10);
    expect(h.merged).toBe(IMAGES / 20);
  });

  it('fills the private columns, as a real database has them', async () => {
    const c = await one<{ ips: number; emails: number }>(`select (select count(*) from images where ip is not null)::int as ips, (select count(*) from users where email like '%@%')::int as emails`);
    expect(c.ips).toBe(IMAGES);
    expect(c.emails).toBe(rows.users);
  });
});
