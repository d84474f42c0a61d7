/**
 * The writes of the mixed run: tag changes at a fixed rate on images the reads also ask for (a
 * popular tag added to an image, then taken off again by the next write), as a tagger's edit
 * would make them. Each commits with its outbox row, so the service's indexer reindexes the image
 * and its caches drop what the change touched: a cost the reads must not pay beyond its own CPU.
 */
import { sql } from 'drizzle-orm';
import type { Database } from '../../src/db/client.js';

export interface Writer {
  /** Tag changes committed so far. */
  readonly writes: number;
  stop(): Promise<void>;
}

export async function startWriter(db: Database, imageIds: readonly number[], perSecond: number): Promise<Writer> {
  const rows = await db.execute<{ id: number }>(sql`select id from tags where aliased_tag_id is null order by images_count desc limit 20`);
  if (rows.length === 0) throw new Error('writer: the board has no tags');
  // whole numbers read from the database, written into the statement as a literal array
  const popular = sql.raw(`array[${rows.map((r) => Number(r.id)).join(',')}]::int[]`);
  let failed: unknown;
  let writes = 0;
  let step = 0;
  let added: { image: number; tag: number } | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    const image = imageIds[(step++ * 7919) % imageIds.length]!;
    running = running.then(async () => {
      if (added) {
        await db.execute(sql`delete from image_taggings where image_id = ${added.image} and tag_id = ${added.tag}`);
        added = undefined;
      } else {
        const rows = await db.execute<{ tag_id: number }>(sql`
          insert into image_taggings (image_id, tag_id)
          select ${image}, t from unnest(${popular}) t
          where not exists (select 1 from image_taggings it where it.image_id = ${image} and it.tag_id = t)
          limit 1
          on conflict do nothing
          returning tag_id`);
        if (rows[0]) added = { image, tag: rows[0].tag_id };
      }
      writes++;
    }).catch((err: unknown) => {
      failed ??= err;
    });
  };
  const timer = setInterval(tick, 1000 / perSecond);
  return {
    get writes() {
      return writes;
    },
    stop: async () => {
      clearInterval(timer);
      await running;
      if (failed) throw failed;
      if (added) await db.execute(sql`delete from image_taggings where image_id = ${added.image} and tag_id = ${added.tag}`);
    },
  };
}
