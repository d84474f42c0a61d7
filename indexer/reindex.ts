/**
 * Full reindex with an alias switch: for each index, build a new physical version from every row
 * in Postgres, replay the changes that arrived meanwhile, and point the alias at it atomically.
 * Searches keep using the old version until the switch and never see a half-built one.
 *
 * Changes during the reindex: this process keeps following the outbox onto the live alias and
 * records the ids it applied (`ReindexTracker`); they are rebuilt onto the new version right before
 * the switch. Other processes pause while the REINDEX lock is held, so the rows they leave are
 * applied after the switch. Outbox rows already visible when the reindex started, of kinds it
 * covers entirely, are deleted at the end; newer rows are never deleted here.
 */
import type { Database } from '../src/db/client.js';
import type { IndexDocument, SearchEngine } from '../src/search/engine.js';
import type { DocumentCache } from '../src/search/indexes/document-cache.js';
import { indexSpec, type IndexName } from '../src/search/indexes/index.js';
import { allIds, countRows, loadDocuments } from '../src/contexts/search/documents/load.js';
import { REINDEX_LOCK, type Mutex } from './locks.js';
import { applyChanges, fanOutKinds, fanOutTargets, type ChangeSet } from './outbox.js';

export interface ReindexProgress {
  index: IndexName;
  /** Documents written to the new version so far. */
  done: number;
  /** Rows in the table when the reindex of this index started. */
  total: number;
  elapsedMs: number;
  docsPerSecond: number;
  phase: 'loading' | 'switching' | 'done';
}

export interface ReindexOptions {
  /** Rows loaded per query (default 5000). */
  batchSize?: number;
  onProgress?: (progress: ReindexProgress) => void;
}

export interface ReindexResult {
  index: IndexName;
  version: string;
  docs: number;
  /** Changes that arrived during the load and were replayed onto the new version. */
  replayed: number;
  seconds: number;
  docsPerSecond: number;
}

/** What a reindex needs from the indexer it runs in. */
export interface ReindexContext {
  db: Database;
  engine: SearchEngine;
  /** The in-process section that outbox batches run in. */
  mutex: Mutex;
  /** Changes applied by this process's follower while a version is being built, per index. */
  tracker: ReindexTracker;
  log?: (msg: string) => void;
  /** Make the new versions durable before covered outbox rows are deleted (embedded engine). */
  beforeDeleteCovered?: () => Promise<void>;
}

/** The ids this process applied to an index while a new version of it is being built. */
export class ReindexTracker {
  private readonly pending = new Map<IndexName, Set<number>>();
  private holders = 0;

  /** True while a reindex in this process holds the REINDEX lock. */
  get active(): boolean {
    return this.holders > 0;
  }

  acquire(): void {
    this.holders++;
  }

  release(): void {
    this.holders--;
  }

  track(index: IndexName): void {
    if (!this.pending.has(index)) this.pending.set(index, new Set());
  }

  untrack(index: IndexName): Set<number> {
    const set = this.pending.get(index) ?? new Set<number>();
    this.pending.delete(index);
    return set;
  }

  /** Record what an outbox batch applied to the live aliases. */
  record(changes: ChangeSet): void {
    for (const [index, ids] of changes) {
      const set = this.pending.get(index);
      if (set) for (const id of ids) set.add(id);
    }
  }

  take(index: IndexName): number[] {
    const set = this.pending.get(index);
    if (!set) return [];
    const ids = [...set];
    set.clear();
    return ids;
  }
}

/** Outbox kinds whose every document lives in the given indices. */
function coveredKinds(names: readonly IndexName[]): string[] {
  const set = new Set<string>(names);
  const kinds: string[] = [...names];
  for (const kind of fanOutKinds) if (fanOutTargets[kind].every((i) => set.has(i))) kinds.push(kind);
  return kinds;
}

/**
 * Batches loaded ahead of the one being written. `engine.write` of the embedded engine runs
 * synchronously and holds this thread, so only queries already sent progress meanwhile: with one
 * batch ahead the database mostly waited for the write and the write for the database (a
 * reindex of 100,000 images took about 1.4x as long as with three).
 */
const BATCHES_AHEAD = 3;

/** Write every row of `name` into `version`, loading the next batches while one is written. */
async function load(ctx: ReindexContext, name: IndexName, version: string, options: ReindexOptions): Promise<number> {
  const { db, engine } = ctx;
  const batchSize = options.batchSize ?? 5000;
  const total = await countRows(db, name);
  const started = Date.now();
  const report = (done: number, phase: ReindexProgress['phase']) => {
    const elapsedMs = Date.now() - started;
    options.onProgress?.({
      index: name,
      done,
      total: Math.max(total, done),
      elapsedMs,
      docsPerSecond: elapsedMs > 0 ? Math.round((done * 1000) / elapsedMs) : 0,
      phase,
    });
  };
  report(0, 'loading');
  const newestFirst = engine.loadsNewestFirst === true;
  const batches = allIds(db, name, { batchSize, newestFirst });
  const cache: DocumentCache = new Map();
  const fetchNext = async () => {
    const next = await batches.next();
    if (next.done) return null;
    return loadDocuments(db, name, next.value, cache);
  };
  const ahead: Promise<IndexDocument[] | null>[] = [];
  const prefetch = () => {
    const next = fetchNext();
    // keep a prefetch from surfacing as an unhandled rejection while we write
    next.catch(() => {});
    ahead.push(next);
  };
  for (let i = 0; i < BATCHES_AHEAD; i++) prefetch();
  let done = 0;
  for (;;) {
    const docs = await ahead.shift()!;
    if (docs === null) break;
    prefetch();
    // the loaders answer in ascending id order whatever order they were asked in
    if (newestFirst) docs.sort((a, b) => Number(b.id) - Number(a.id));
    if (docs.length > 0) await engine.write(version, docs);
    done += docs.length;
    report(done, 'loading');
  }
  return done;
}

/**
 * Reindex `names` one after the other. Holds the REINDEX lock (on a connection of its own) for
 * the whole run; throws if another process is reindexing.
 */
export async function reindex(ctx: ReindexContext, names: readonly IndexName[], options: ReindexOptions = {}): Promise<ReindexResult[]> {
  const { db, engine, mutex, tracker } = ctx;
  const session = await db.$client.reserve();
  const results: ReindexResult[] = [];
  try {
    const [lock] = await session.unsafe<{ ok: boolean }[]>('select pg_try_advisory_lock($1::bigint) as ok', [REINDEX_LOCK]);
    if (!lock?.ok) {
      // a batch of this or another process may still hold it shared for a moment; wait for those,
      // but not for another reindex (of this board: pg_locks shows every database of the cluster)
      const [holder] = await session.unsafe<{ n: number }[]>(
        `select count(*)::int as n from pg_locks where locktype = 'advisory' and mode = 'ExclusiveLock'
           and database = (select oid from pg_database where datname = current_database()) and ((classid::bigint << 32) | objid::bigint) = $1::bigint and granted`,
        [REINDEX_LOCK],
      );
      if ((holder?.n ?? 0) > 0) throw new Error('another reindex is running');
      await session.unsafe('select pg_advisory_lock($1::bigint)', [REINDEX_LOCK]);
    }
    tracker.acquire();
    try {
      // Rows visible now are covered by the rebuild (it reads later); remember them, not a bound.
      const kinds = coveredKinds(names);
      const covered = (
        await session.unsafe<{ id: number }[]>('select id from search_outbox where index = any($1::text[]) order by id', [kinds as never])
      ).map((r) => r.id);

      for (const name of names) {
        const started = Date.now();
        const spec = indexSpec(name);
        await engine.ensureIndex(spec);
        const version = await engine.createVersion(spec);
        tracker.track(name);
        let docs: number;
        let replayed = 0;
        try {
          ctx.log?.(`reindex ${name}: building ${version}`);
          docs = await load(ctx, name, version, options);
          // Replay outside the section first (the bulk of it), then the rest with batches held off.
          const early = tracker.take(name);
          if (early.length > 0) await applyChanges(db, engine, new Map([[name, new Set(early)]]), { target: () => version });
          replayed += early.length;
          options.onProgress?.({
            index: name,
            done: docs,
            total: docs,
            elapsedMs: Date.now() - started,
            docsPerSecond: Math.round((docs * 1000) / Math.max(1, Date.now() - started)),
            phase: 'switching',
          });
          await mutex.run(async () => {
            const late = tracker.untrack(name);
            if (late.size > 0) await applyChanges(db, engine, new Map([[name, late]]), { target: () => version });
            replayed += late.size;
            await engine.switchAlias(name, version);
          });
        } finally {
          tracker.untrack(name);
        }
        const seconds = (Date.now() - started) / 1000;
        const result: ReindexResult = {
          index: name,
          version,
          docs,
          replayed,
          seconds,
          docsPerSecond: seconds > 0 ? Math.round(docs / seconds) : docs,
        };
        results.push(result);
        options.onProgress?.({
          index: name,
          done: docs,
          total: docs,
          elapsedMs: seconds * 1000,
          docsPerSecond: result.docsPerSecond,
          phase: 'done',
        });
        ctx.log?.(`reindex ${name}: ${docs} documents in ${seconds.toFixed(1)} s (${result.docsPerSecond}/s), alias -> ${version}`);
      }

      if (covered.length > 0) await ctx.beforeDeleteCovered?.();
      for (let start = 0; start < covered.length; start += 10_000) {
        await session.unsafe('delete from search_outbox where id = any($1::bigint[])', [covered.slice(start, start + 10_000) as never]);
      }
    } finally {
      tracker.release();
      await session.unsafe('select pg_advisory_unlock($1::bigint)', [REINDEX_LOCK]).catch(() => {});
    }
  } finally {
    session.release();
  }
  return results;
}
