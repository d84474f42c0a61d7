/**
 * The indexer: keeps the search indices in step with Postgres. The server runs one in-process in
 * embedded mode; beside OpenSearch every API process has one and the process that leads follows
 * the outbox (`leader.ts`); the CLI uses it for reindexes, drift checks and status.
 *
 *   const indexer = new Indexer({ db, engine, log });
 *   await indexer.ensureIndexes();
 *   await indexer.repairIndexes();    // build what the engine lacks or lost
 *   indexer.start();                  // follow the outbox
 *   ...
 *   await indexer.stop();             // finishes the batch in progress
 *
 * Durability: when the engine keeps its data only until `flush()` (the embedded engine), applied
 * outbox rows are not deleted in the batch's transaction but after the next flush, so a crash
 * between the two replays them instead of losing them. Otherwise (OpenSearch, whose writes are
 * durable when acknowledged) rows are deleted in the transaction that applied them. In deferred
 * mode the flush records the highest applied outbox id with the index files, and the delete
 * raises `search_outbox_applied` to it; an index found at start to cover less lost writes whose
 * rows are gone, and `repairIndexes()` rebuilds it. Each flush also records the database beside
 * the files (`database-mark.ts`): files of another database, or claiming more than this one holds,
 * are rebuilt whole.
 */
import type { Database } from '../src/db/client.js';
import type { SearchEngine } from '../src/search/engine.js';
import { indexNames, indexSpec, isIndexName, type IndexName } from '../src/search/indexes/index.js';
import { countRows } from '../src/contexts/search/documents/load.js';
import { readDatabaseState, untrustedFiles } from './database-mark.js';
import { OutboxFollower } from './follow.js';
import { Mutex, REINDEX_LOCK, SYNC_LOCK } from './locks.js';
import {
  applyChanges,
  appliedThrough,
  changeCount,
  deleteApplied,
  expandRows,
  processOutboxBatch,
  type BatchResult,
  type ChangeSet,
  type OutboxRow,
} from './outbox.js';
import { reindex, ReindexTracker, type ReindexOptions, type ReindexResult } from './reindex.js';
import { indexerStatus, type IndexerStatus } from './status.js';
import { verify, type VerifyOptions, type VerifyReport } from './verify.js';

export type { BatchResult, ChangeSet, IndexerStatus, ReindexOptions, ReindexResult, VerifyOptions, VerifyReport };
export type { ReindexProgress } from './reindex.js';

export interface IndexerHooks {
  /**
   * Called after a batch's documents are written and before its outbox rows are deleted. A hook
   * that throws aborts the batch (the rows stay): tests use it to simulate a crash there.
   */
  afterApply?: (changes: ChangeSet) => void | Promise<void>;
}

export interface IndexerOptions {
  db: Database;
  engine: SearchEngine;
  log?: (msg: string) => void;
  /** Documents loaded per query (default 5000). */
  batchSize?: number;
  /** Outbox rows claimed per batch (default 1000). */
  outboxBatchSize?: number;
  /** Follower polling interval (default 1000 ms). */
  pollMs?: number;
  /** Follower debounce after a notification (default 15 ms). */
  debounceMs?: number;
  /**
   * When applied outbox rows are deleted: `immediate` (in the batch's transaction) or `flush`
   * (after the engine's next flush). Default: `flush` for the embedded engine, else `immediate`.
   */
  deleteRows?: 'immediate' | 'flush';
  /** With `deleteRows: 'flush'`, flush at least this often while following (default 30 s)... */
  flushIntervalMs?: number;
  /** ...or once this many applied rows are waiting (default 50,000). */
  flushRows?: number;
  hooks?: IndexerHooks;
  /**
   * Immediate mode: after a batch, record the database's mark with the engine's indices at most
   * this often (default 5 s; deferred mode records it with each flush).
   */
  markIntervalMs?: number;
}

export class Indexer {
  readonly db: Database;
  readonly engine: SearchEngine;
  private readonly options: IndexerOptions;
  private readonly log: (msg: string) => void;
  private readonly mutex = new Mutex();
  private readonly tracker = new ReindexTracker();
  private readonly deferred: boolean;
  /** Applied rows waiting for a flush before they are deleted (deferred mode). */
  private readonly applied = new Set<number>();
  private lastFlush = Date.now();
  private lastMark = 0;
  private committing: Promise<void> | undefined;
  private follower: OutboxFollower | undefined;
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(options: IndexerOptions) {
    this.options = options;
    this.db = options.db;
    this.engine = options.engine;
    this.log = options.log ?? (() => {});
    this.deferred = (options.deleteRows ?? (options.engine.kind === 'embedded' ? 'flush' : 'immediate')) === 'flush';
  }

  /** Create every index (alias and first version) the engine does not have yet. */
  async ensureIndexes(names: readonly IndexName[] = indexNames): Promise<void> {
    for (const name of names) await this.engine.ensureIndex(indexSpec(name));
  }

  /**
   * Rebuild, before following, the indices that cannot be trusted: every index when the engine's
   * files were written beside another database or claim more than this one holds (restored from
   * an older backup; `database-mark.ts`), else those without documents while their table has
   * rows (a first start, or index files discarded because they did not verify), and, in deferred
   * mode, those whose files cover a lower outbox position than the rows already deleted (a lost
   * log). Returns what was rebuilt.
   */
  async repairIndexes(options: ReindexOptions = {}): Promise<ReindexResult[]> {
    await this.ensureIndexes();
    const persisted = await this.engine.persisted?.();
    for (const reason of persisted?.discarded ?? []) this.log(`index files discarded: ${reason}`);
    const state = persisted && this.engine.markDatabase ? await readDatabaseState(this.db) : undefined;
    const untrusted = persisted && state ? untrustedFiles(persisted, state) : undefined;
    if (state) await this.engine.markDatabase!(state.mark, untrusted !== undefined);
    const through = this.deferred && persisted ? await appliedThrough(this.db) : 0;
    const stale: IndexName[] = [];
    const reasons: string[] = [];
    for (const name of indexNames) {
      const position = persisted?.positions[name] ?? 0;
      if (untrusted !== undefined) {
        stale.push(name);
      } else if ((await this.engine.count(name)) === 0 && (await countRows(this.db, name)) > 0) {
        stale.push(name);
        reasons.push(`${name} (no documents)`);
      } else if (position < through) {
        stale.push(name);
        reasons.push(`${name} (covers outbox position ${position} of ${through})`);
      }
    }
    if (stale.length === 0) return [];
    this.log(untrusted !== undefined ? `rebuilding every index: ${untrusted}` : `rebuilding indices: ${reasons.join(', ')}`);
    const results = await this.reindex(stale, options);
    await this.syncOnce();
    // the rebuilt indices read a database that holds every change up to `through`
    await this.engine.flush(through > 0 ? through : undefined);
    return results;
  }

  /** Apply one outbox batch. */
  async syncBatch(): Promise<BatchResult> {
    if (!this.deferred) {
      const batch = await this.mutex.run(() => this.immediateBatch());
      if (batch.rows > 0) await this.markAfterBatch();
      return batch;
    }
    const result = await this.mutex.run(() => this.deferredBatch());
    // bound the rows each deferred batch walks past
    if (this.applied.size >= (this.options.flushRows ?? 50_000)) await this.commit();
    return result;
  }

  /**
   * Immediate mode: the engine's indices say how far the database had gone (`database-mark.ts`);
   * a failure only leaves the previous mark, which claims less.
   */
  private async markAfterBatch(): Promise<void> {
    if (!this.engine.markDatabase || Date.now() - this.lastMark < (this.options.markIntervalMs ?? 5_000)) return;
    this.lastMark = Date.now();
    try {
      await this.engine.markDatabase((await readDatabaseState(this.db)).mark);
    } catch (err) {
      this.log(`could not record the database mark: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  private immediateBatch(): Promise<BatchResult> {
    return processOutboxBatch(this.db, this.engine, {
      limit: this.options.outboxBatchSize,
      batchSize: this.options.batchSize,
      ownReindex: this.tracker.active,
      afterApply: async (changes) => {
        this.tracker.record(changes);
        await this.options.hooks?.afterApply?.(changes);
      },
      onUnknown: (row) => this.log(`outbox row ${row.id}: unknown kind [${row.kind}], dropped`),
    });
  }

  /**
   * Deferred mode: claim rows not applied yet, walking the whole outbox by id (rows applied but
   * waiting for a flush are skipped), so a row that commits late with a low id is still found.
   */
  private async deferredBatch(): Promise<BatchResult> {
    const limit = this.options.outboxBatchSize ?? 1000;
    const page = Math.max(limit, 5000);
    return this.db.$client.begin(async (tx) => {
      await tx.unsafe('select pg_advisory_xact_lock($1::bigint)', [SYNC_LOCK]);
      if (!this.tracker.active) {
        const [lock] = await tx.unsafe<{ ok: boolean }[]>('select pg_try_advisory_xact_lock_shared($1::bigint) as ok', [REINDEX_LOCK]);
        if (!lock?.ok) return { rows: 0, written: 0, removed: 0, paused: true };
      }
      const rows: OutboxRow[] = [];
      let cursor = -1;
      while (rows.length < limit) {
        const found = await tx.unsafe<OutboxRow[]>(
          'select id, index as kind, record_id as "recordId" from search_outbox where id > $1 order by id limit $2',
          [cursor, page],
          { prepare: true },
        );
        for (const row of found) if (!this.applied.has(row.id) && rows.length < limit) rows.push(row);
        if (found.length < page) break;
        cursor = found[found.length - 1]!.id;
      }
      if (rows.length === 0) return { rows: 0, written: 0, removed: 0, paused: false };
      const changes = await expandRows(this.db, rows, (row) => this.log(`outbox row ${row.id}: unknown kind [${row.kind}], dropped`));
      const result = await applyChanges(this.db, this.engine, changes, { batchSize: this.options.batchSize });
      this.tracker.record(changes);
      await this.options.hooks?.afterApply?.(changes);
      for (const row of rows) this.applied.add(row.id);
      return { rows: rows.length, ...result, paused: false };
    }) as Promise<BatchResult>;
  }

  /**
   * Deferred mode: flush the engine, then delete the rows it now holds durably. A no-op in
   * immediate mode. Batches go on meanwhile: only rows applied before the flush began are deleted.
   */
  async commit(): Promise<void> {
    if (!this.deferred) return;
    while (this.committing) await this.committing;
    this.committing = this.flushAndDelete().finally(() => {
      this.committing = undefined;
    });
    await this.committing;
  }

  private async flushAndDelete(): Promise<void> {
    this.lastFlush = Date.now();
    if (this.applied.size === 0) return;
    const ids = [...this.applied];
    const position = ids.reduce((max, id) => Math.max(max, id), 0);
    // the files say how far the database had gone when they were written (see database-mark.ts)
    if (this.engine.markDatabase) await this.engine.markDatabase((await readDatabaseState(this.db)).mark);
    await this.engine.flush(position);
    await deleteApplied(this.db, ids, position);
    for (const id of ids) this.applied.delete(id);
  }

  private async maybeCommit(): Promise<void> {
    if (!this.deferred || this.applied.size === 0) return;
    const due = Date.now() - this.lastFlush >= (this.options.flushIntervalMs ?? 30_000);
    if (due || this.applied.size >= (this.options.flushRows ?? 50_000)) {
      try {
        await this.commit();
      } catch (err) {
        this.log(`index flush failed, will retry: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }

  /**
   * Apply outbox batches until none is left, then (deferred mode) flush and delete them.
   * Resolves to the number of outbox rows applied; 0 also when a reindex in another process holds
   * the outbox.
   */
  async syncOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.syncBatch();
      total += batch.rows;
      if (batch.rows === 0) break;
    }
    await this.commit();
    return total;
  }

  /** Follow the outbox in the background until `stop()`. */
  start(): void {
    if (this.follower?.isRunning) return;
    this.follower = new OutboxFollower({
      db: this.db,
      runBatch: async () => (await this.syncBatch()).rows,
      pollMs: this.options.pollMs,
      debounceMs: this.options.debounceMs,
      log: this.log,
      onDrained: () => void this.maybeCommit(),
    });
    this.follower.start();
    if (this.deferred) {
      this.flushTimer = setInterval(() => void this.maybeCommit(), Math.min(1000, this.options.flushIntervalMs ?? 30_000));
      this.flushTimer.unref?.();
    }
  }

  /** Stop following: the batch in progress finishes, and applied rows are flushed and deleted. */
  async stop(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    await this.follower?.stop();
    this.follower = undefined;
    await this.commit();
  }

  /**
   * Rebuild `names` (all by default) into new versions and switch their aliases. Changes that
   * arrive meanwhile are applied to the new versions, by this indexer's follower or afterwards.
   */
  async reindex(names: readonly IndexName[] = indexNames, options: ReindexOptions = {}): Promise<ReindexResult[]> {
    for (const name of names) if (!isIndexName(name)) throw new Error(`unknown index [${name}]`);
    return reindex(
      {
        db: this.db,
        engine: this.engine,
        mutex: this.mutex,
        tracker: this.tracker,
        log: this.log,
        // the covered outbox rows may go only once the new versions are durable
        beforeDeleteCovered: this.deferred ? () => this.mutex.run(() => this.engine.flush()) : undefined,
      },
      names,
      options,
    );
  }

  /**
   * Outbox rows this indexer has not applied yet, and the age of the oldest. Unlike the outbox
   * status, rows applied but waiting for a flush (embedded engine) do not count: this is what
   * searches lag behind the database.
   */
  async lag(): Promise<{ pending: number; oldestAgeSeconds: number | null }> {
    const [total] = await this.db.$client.unsafe<{ n: number }[]>('select count(*)::int as n from search_outbox');
    const pending = Math.max(0, (total?.n ?? 0) - this.applied.size);
    if (pending === 0) return { pending, oldestAgeSeconds: null };
    // the first row in id order that is not applied (applied rows are all still there)
    const rows = await this.db.$client.unsafe<{ id: number; age: number }[]>(
      'select id, extract(epoch from now() - created_at)::float8 as age from search_outbox order by id limit $1',
      [this.applied.size + 1],
    );
    const first = rows.find((r) => !this.applied.has(r.id));
    return { pending, oldestAgeSeconds: first?.age ?? null };
  }

  async verify(names: readonly IndexName[] = indexNames, options: VerifyOptions = {}): Promise<VerifyReport> {
    return verify(this.db, this.engine, names, options);
  }

  async status(names: readonly IndexName[] = indexNames): Promise<IndexerStatus> {
    return indexerStatus(this.db, this.engine, names);
  }

  /** Rebuild specific documents now (e.g. after a bulk load that skipped the outbox). */
  async refresh(changes: ChangeSet): Promise<number> {
    if (changeCount(changes) === 0) return 0;
    const result = await this.mutex.run(() => applyChanges(this.db, this.engine, changes, { batchSize: this.options.batchSize }));
    return result.written + result.removed;
  }
}
