/**
 * The outbox: rows written by triggers in the same transaction as each change (migration 0001).
 * A batch is claimed in id order under the SYNC lock, fan-out kinds are expanded to (index, ids),
 * documents are rebuilt from Postgres and written (or removed when their row is gone), and only
 * then are the rows deleted, in the same transaction that claimed them. A crash anywhere before
 * the commit leaves the rows in place, and applying them again converges: delivery is
 * at-least-once and every step is idempotent.
 */
import type { Database } from '../src/db/client.js';
import type { SearchEngine } from '../src/search/engine.js';
import { indexNames, isIndexName, type IndexName } from '../src/search/indexes/index.js';
import { loadDocuments } from '../src/contexts/search/documents/load.js';
import { REINDEX_LOCK, SYNC_LOCK } from './locks.js';

/** Outbox kinds that stand for a set of documents in other indices. */
export const fanOutKinds = ['user', 'tag_images', 'image_comments', 'topic_posts', 'forum_posts'] as const;
export type FanOutKind = (typeof fanOutKinds)[number];

/** The indices each fan-out kind can touch (what a full reindex of them covers). */
export const fanOutTargets: Record<FanOutKind, readonly IndexName[]> = {
  user: ['images', 'comments', 'posts', 'galleries', 'filters'],
  tag_images: ['images', 'comments', 'tags'],
  image_comments: ['comments'],
  topic_posts: ['posts'],
  forum_posts: ['posts'],
};

export interface OutboxRow {
  id: number;
  kind: string;
  recordId: number;
}

/** Document ids to rebuild, per index. */
export type ChangeSet = Map<IndexName, Set<number>>;

export function addChange(changes: ChangeSet, index: IndexName, id: number): void {
  let set = changes.get(index);
  if (!set) changes.set(index, (set = new Set()));
  set.add(id);
}

export function changeCount(changes: ChangeSet): number {
  let n = 0;
  for (const ids of changes.values()) n += ids.size;
  return n;
}

/**
 * The documents a fan-out touches, one set-based query per kind:
 * - `user` (a rename): the images the user uploaded, deleted, faved, hid or voted on; their
 *   comments and posts (written or deleted); their galleries and filters.
 * - `tag_images` (a tag renamed or (un)aliased): the images carrying the tag (their `tags` hold
 *   tag and alias names), the comments on those images (`image.tags`), and the tags that name it
 *   (implications both ways, aliases, alias target).
 * - `image_comments`, `topic_posts`, `forum_posts`: the children that copy parent fields.
 */
const fanOutQueries: Record<FanOutKind, string> = {
  user: `
    select 'images' as idx, id from images where user_id = any($1::int[])
    union all select 'images', id from images where deleted_by_id = any($1::int[])
    union all select 'images', image_id from image_faves where user_id = any($1::int[])
    union all select 'images', image_id from image_hides where user_id = any($1::int[])
    union all select 'images', image_id from image_votes where user_id = any($1::int[])
    union all select 'comments', id from comments where user_id = any($1::int[]) or deleted_by_id = any($1::int[])
    union all select 'posts', id from posts where user_id = any($1::int[]) or deleted_by_id = any($1::int[])
    union all select 'galleries', id from galleries where creator_id = any($1::int[])
    union all select 'filters', id from filters where user_id = any($1::int[])`,
  tag_images: `
    select 'images' as idx, image_id as id from image_taggings where tag_id = any($1::int[])
    union all select 'comments', c.id from comments c join image_taggings it on it.image_id = c.image_id where it.tag_id = any($1::int[])
    union all select 'tags', tag_id from tag_implications where implied_tag_id = any($1::int[])
    union all select 'tags', implied_tag_id from tag_implications where tag_id = any($1::int[])
    union all select 'tags', id from tags where aliased_tag_id = any($1::int[])
    union all select 'tags', aliased_tag_id from tags where id = any($1::int[]) and aliased_tag_id is not null`,
  image_comments: `select 'comments' as idx, id from comments where image_id = any($1::int[])`,
  topic_posts: `select 'posts' as idx, id from posts where topic_id = any($1::int[])`,
  forum_posts: `select 'posts' as idx, p.id from posts p join topics t on t.id = p.topic_id where t.forum_id = any($1::int[])`,
};

const isFanOutKind = (kind: string): kind is FanOutKind => (fanOutKinds as readonly string[]).includes(kind);

/** Turn outbox rows into the deduplicated document ids they stand for. Unknown kinds are reported. */
export async function expandRows(
  db: Database,
  rows: readonly OutboxRow[],
  onUnknown?: (row: OutboxRow) => void,
): Promise<ChangeSet> {
  const changes: ChangeSet = new Map();
  const fanOut = new Map<FanOutKind, Set<number>>();
  for (const row of rows) {
    if (isIndexName(row.kind)) addChange(changes, row.kind, row.recordId);
    else if (isFanOutKind(row.kind)) {
      let set = fanOut.get(row.kind);
      if (!set) fanOut.set(row.kind, (set = new Set()));
      set.add(row.recordId);
    } else onUnknown?.(row);
  }
  for (const [kind, ids] of fanOut) {
    const found = await db.$client.unsafe<{ idx: string; id: number }[]>(fanOutQueries[kind], [[...ids] as never], { prepare: true });
    for (const { idx, id } of found) if (isIndexName(idx)) addChange(changes, idx, id);
  }
  return changes;
}

export interface ApplyOptions {
  /** Documents loaded per query (default 5000). */
  batchSize?: number;
  /** Where to write each index's documents; the alias (index name) by default. */
  target?: (index: IndexName) => string;
}

export interface ApplyResult {
  written: number;
  removed: number;
}

/** Rebuild the changed documents from Postgres: write the ones found, remove the ones gone. */
export async function applyChanges(db: Database, engine: SearchEngine, changes: ChangeSet, options: ApplyOptions = {}): Promise<ApplyResult> {
  const batchSize = options.batchSize ?? 5000;
  const result: ApplyResult = { written: 0, removed: 0 };
  for (const index of indexNames) {
    const set = changes.get(index);
    if (!set || set.size === 0) continue;
    const target = options.target?.(index) ?? index;
    const ids = [...set].sort((a, b) => a - b);
    for (let start = 0; start < ids.length; start += batchSize) {
      const chunk = ids.slice(start, start + batchSize);
      const docs = await loadDocuments(db, index, chunk);
      if (docs.length > 0) await engine.write(target, docs);
      if (docs.length < chunk.length) {
        const found = new Set(docs.map((d) => d.id));
        const gone = chunk.filter((id) => !found.has(id));
        await engine.remove(target, gone);
        result.removed += gone.length;
      }
      result.written += docs.length;
    }
  }
  return result;
}

export interface BatchOptions extends ApplyOptions {
  /** Outbox rows per batch (default 1000). */
  limit?: number;
  /**
   * Skip the check for a reindex running in another process. The process that runs the reindex
   * itself sets this and replays what it applied onto the new version.
   */
  ownReindex?: boolean;
  /** Called with the applied changes after the engine writes, before the rows are deleted. */
  afterApply?: (changes: ChangeSet) => void | Promise<void>;
  onUnknown?: (row: OutboxRow) => void;
}

export interface BatchResult extends ApplyResult {
  /** Outbox rows processed (and deleted). */
  rows: number;
  /** True when a reindex in another process holds the outbox: nothing was claimed. */
  paused: boolean;
}

/**
 * Claim up to `limit` outbox rows in id order, apply them, delete them; all in one transaction
 * that holds the SYNC lock. Throws (and leaves the rows) if any step fails.
 */
export async function processOutboxBatch(db: Database, engine: SearchEngine, options: BatchOptions = {}): Promise<BatchResult> {
  const limit = options.limit ?? 1000;
  return db.$client.begin(async (tx) => {
    await tx.unsafe('select pg_advisory_xact_lock($1::bigint)', [SYNC_LOCK]);
    if (!options.ownReindex) {
      const [lock] = await tx.unsafe<{ ok: boolean }[]>('select pg_try_advisory_xact_lock_shared($1::bigint) as ok', [REINDEX_LOCK]);
      if (!lock?.ok) return { rows: 0, written: 0, removed: 0, paused: true };
    }
    const rows = await tx.unsafe<OutboxRow[]>(
      'select id, index as kind, record_id as "recordId" from search_outbox order by id limit $1',
      [limit],
      { prepare: true },
    );
    if (rows.length === 0) return { rows: 0, written: 0, removed: 0, paused: false };
    const changes = await expandRows(db, rows, options.onUnknown);
    const applied = await applyChanges(db, engine, changes, options);
    await options.afterApply?.(changes);
    await tx.unsafe('delete from search_outbox where id = any($1::bigint[])', [rows.map((r) => r.id) as never]);
    return { rows: rows.length, ...applied, paused: false };
  }) as Promise<BatchResult>;
}

/**
 * The highest outbox id deleted after the engine made it durable (deferred mode, embedded
 * engine): an index that covers less has lost writes (see the engine's `persisted()`).
 */
export async function appliedThrough(db: Database): Promise<number> {
  const [row] = await db.$client.unsafe<{ through: number }[]>('select through from search_outbox_applied');
  return row?.through ?? 0;
}

/** Delete applied rows and raise the applied position to `position`, in one transaction. */
export async function deleteApplied(db: Database, ids: readonly number[], position: number): Promise<void> {
  await db.$client.begin(async (tx) => {
    for (let start = 0; start < ids.length; start += 10_000) {
      await tx.unsafe('delete from search_outbox where id = any($1::bigint[])', [ids.slice(start, start + 10_000) as never]);
    }
    await tx.unsafe(
      `insert into search_outbox_applied (singleton, through) values (true, $1)
       on conflict (singleton) do update set through = greatest(search_outbox_applied.through, excluded.through)`,
      [position],
    );
  });
}
