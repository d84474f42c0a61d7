/**
 * The PostgreSQL baseline: one row per image with its tag ids in an int[] under a GIN index (and
 * btrees for the orders), the way one would answer tag searches in SQL alone. Built once per
 * board and reused; the table's comment records the image count it was built for.
 */
import type { Sql } from 'postgres';

const MARK = (images: number) => `tagwise bench baseline: ${images} images`;

/** Create and fill `bench_images` unless it is already there for this board; returns seconds spent, or null when reused. */
export async function ensureBaselineTable(sql: Sql, images: number, log: (m: string) => void): Promise<number | null> {
  const [row] = await sql.unsafe<{ note: string | null }[]>(
    `select obj_description(to_regclass('bench_images'), 'pg_class') as note`,
  );
  if (row?.note === MARK(images)) return null;
  const started = performance.now();
  const step = async (what: string, statement: string) => {
    const t = performance.now();
    await sql.unsafe(statement);
    log(`  baseline ${what}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  };
  await sql.unsafe('drop table if exists bench_images');
  await step(
    'table',
    `create table bench_images (
       id int primary key,
       tag_ids int[] not null,
       score int not null,
       first_seen_at timestamptz not null,
       approved boolean not null,
       hidden_from_users boolean not null)`,
  );
  await step(
    'rows (array_agg of image_taggings)',
    `insert into bench_images
     select i.id, coalesce(t.tag_ids, '{}'), i.score, i.first_seen_at, i.approved, i.hidden_from_users
     from images i
     left join (select image_id, array_agg(tag_id order by tag_id) as tag_ids from image_taggings group by image_id) t
       on t.image_id = i.id`,
  );
  await sql.unsafe(`set maintenance_work_mem = '512MB'`);
  await step('GIN index on tag_ids', 'create index bench_images_tag_ids on bench_images using gin (tag_ids)');
  await step('btree on (score, id)', 'create index bench_images_score on bench_images (score, id)');
  await step('btree on (first_seen_at, id)', 'create index bench_images_first_seen_at on bench_images (first_seen_at, id)');
  await step('vacuum analyze', 'vacuum (analyze) bench_images');
  await sql.unsafe(`comment on table bench_images is '${MARK(images)}'`);
  return (performance.now() - started) / 1000;
}
