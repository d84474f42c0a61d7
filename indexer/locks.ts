/**
 * Coordination between indexers. Several processes may consume the outbox (the server in-process,
 * an `indexer` process beside OpenSearch, a CLI run), so two Postgres advisory locks order them:
 *
 * - SYNC: held (transaction-scoped) by whoever applies an outbox batch, so batches never overlap
 *   and a document loaded later is never overwritten by one loaded earlier.
 * - REINDEX: held (session-scoped, exclusive) for the whole of a full reindex. Outbox batches take
 *   it shared for their transaction, so a reindex starts only once batches in flight are done, and
 *   other processes pause while it runs: the rows they leave are applied to the new version after
 *   the alias switch. The reindexing process itself keeps following and replays what it applied
 *   onto the new version before switching.
 * - ENGINE_OWNER: held by the one process per database that runs the embedded engine.
 */

/** Advisory lock keys (bigint space, "tagw" + a number; 3 is the dump's, src/dumps/write.ts, 9 the change log's). */
export const SYNC_LOCK = 0x7461_6777_0001;
export const REINDEX_LOCK = 0x7461_6777_0002;
/** Held (session-scoped) for its whole life by the one process that runs the embedded engine (engine-owner.ts). */
export const ENGINE_OWNER_LOCK = 0x7461_6777_0010;

/** A promise-chain mutex: one critical section at a time within this process, in arrival order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => {});
    return result;
  }
}
