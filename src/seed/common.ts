/**
 * Pieces shared by the seeders (and the importer): emptiness checks, truncation, sequence resets,
 * chunked inserts, the system filters, and where seeded files go.
 */
import { sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { RECORD_CHANGES_CHANNEL } from '../db/record-change-feed.js';
import type { Database } from '../db/client.js';
import type { MediaStorage } from '../media/storage.js';
import type { Executor } from '../db/executor.js';

/** Tables that, when all empty, mean nobody has used the board yet. */
const CONTENT_TABLES = ['users', 'tags', 'images', 'filters', 'forums', 'comments'] as const;

/** True when the board has no users, tags, images, filters, forums or comments. */
export async function isBoardEmpty(db: Executor): Promise<boolean> {
  const probes = CONTENT_TABLES.map((t) => `not exists (select 1 from ${t})`).join(' and ');
  const rows = await db.execute<{ empty: boolean }>(sql.raw(`select ${probes} as empty`));
  return rows[0]?.empty === true;
}

/** The board's tables (everything in `public`; the migration journal lives elsewhere). */
export async function boardTables(db: Executor): Promise<string[]> {
  const rows = await db.execute<{ name: string }>(
    sql`select tablename as name from pg_tables where schemaname = 'public' order by tablename`,
  );
  return rows.map((r) => r.name);
}

/** Empty every table of the board and restart its id sequences. */
export async function truncateBoard(db: Executor): Promise<void> {
  const tables = await boardTables(db);
  if (tables.length === 0) return;
  await db.execute(sql.raw(`truncate ${tables.map((t) => `"${t}"`).join(', ')} restart identity cascade`));
}

/**
 * Move every serial id sequence past the largest id in its table, after rows were inserted with
 * explicit ids (the next insert without an id must not collide). Never backwards: writers beside
 * the caller may hold ids the caller's snapshot cannot see (uncommitted, or committed since), and
 * a sequence set back to max(id) + 1 would hand those ids out again. `nextval` reserves a value
 * atomically; only a table whose largest id reaches it moves the sequence, to that id.
 */
export async function resetSequences(db: Executor): Promise<void> {
  const rows = await db.execute<{ table_name: string; column_name: string; seq: string }>(sql`
    select c.table_name, c.column_name, pg_get_serial_sequence(format('%I.%I', c.table_schema, c.table_name), c.column_name) as seq
    from information_schema.columns c
    where c.table_schema = 'public' and c.column_default like 'nextval(%'`);
  for (const r of rows) {
    if (!r.seq) continue;
    await db.execute(
      sql.raw(
        `select setval('${r.seq}', m, true) from (select max("${r.column_name}") as m, nextval('${r.seq}') as v from "${r.table_name}") x where m >= v`,
      ),
    );
  }
}

/**
 * Before rows with explicit ids are written: move each table's `id` sequence to at least the
 * largest id about to be written (never backwards, as `resetSequences`). Sequences are not
 * transactional, so writers beside an import stop drawing those ids at once, before its commit.
 */
export async function reserveIds(db: Executor, largest: Readonly<Record<string, number>>): Promise<void> {
  for (const [table, max] of Object.entries(largest)) {
    if (!(max > 0)) continue;
    await db.execute(sql`
      select setval(seq, ${max}::bigint, true)
      from (select seq, nextval(seq) as v from (select pg_get_serial_sequence(${`public."${table}"`}, 'id') as seq) s where seq is not null) x
      where ${max}::bigint >= v`);
  }
}

/** Insert rows in chunks small enough for the protocol's parameter limit. */
export async function insertChunked<T extends PgTable>(
  tx: Executor,
  table: T,
  rows: readonly T['$inferInsert'][],
  chunk = 500,
): Promise<void> {
  for (let i = 0; i < rows.length; i += chunk) {
    await tx.insert(table).values(rows.slice(i, i + chunk) as T['$inferInsert'][]);
  }
}

/**
 * Turn off the outbox triggers for the rest of the transaction (the caller reindexes everything),
 * and announce at its commit that anything may have changed: caches of rendered records start
 * again (see `src/db/record-change-feed.ts`).
 */
export async function skipOutbox(tx: Executor): Promise<void> {
  await tx.execute(sql`select set_config('tagwise.skip_outbox', 'on', true), pg_notify(${RECORD_CHANGES_CHANNEL}, '*')`);
}

/** Where the files of a board go: image files and the avatar, badge and tag-image assets. */
export interface SeedFileStores {
  images: MediaStorage;
  avatars: MediaStorage;
  badges: MediaStorage;
  tagImages: MediaStorage;
}

/** The areas of a storage the server reads from (`images`, `avatars`, `badge-img`, `tag-img`). */
export function fileStoresOf(storage: MediaStorage): SeedFileStores {
  return {
    images: storage.area('images'),
    avatars: storage.area('avatars'),
    badges: storage.area('badge-img'),
    tagImages: storage.area('tag-img'),
  };
}

/**
 * Philomena's `destructive_slug` (topic slugs): printable ASCII only, each run of other characters
 * becomes `-`, dashes trimmed, lowercased.
 */
export function destructiveSlug(text: string): string {
  return text
    .replace(/[^\x20-\x7e]/g, '')
    .replace(/[^a-zA-Z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
}

/** Run `worker` over `items` with at most `limit` in flight, keeping result order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, worker: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await worker(items[i]!, i);
    }
  });
  await Promise.all(lanes);
  return results;
}

export type { Database };
