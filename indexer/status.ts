/** Where the indices stand: rows in Postgres, documents in the engine, and the outbox lag. */
import type { Database } from '../src/db/client.js';
import type { SearchEngine } from '../src/search/engine.js';
import { indexNames, type IndexName } from '../src/search/indexes/index.js';
import { countRows } from '../src/contexts/search/documents/load.js';
import { outboxLag } from '../src/contexts/indexing/outbox-lag.js';

export interface IndexStatus {
  index: IndexName;
  /** Rows in the Postgres table. */
  rows: number;
  /** Documents in the engine, or null when the index does not exist there. */
  docs: number | null;
}

export interface OutboxStatus {
  /** Rows waiting to be applied. */
  pending: number;
  /** Age of the oldest pending row in seconds, or null when none is pending. */
  oldestAgeSeconds: number | null;
  /** Pending rows per outbox kind (index name or fan-out kind). */
  byKind: Record<string, number>;
}

export interface IndexerStatus {
  engine: SearchEngine['kind'];
  indexes: IndexStatus[];
  outbox: OutboxStatus;
}

export async function indexerStatus(db: Database, engine: SearchEngine, names: readonly IndexName[] = indexNames): Promise<IndexerStatus> {
  const indexes: IndexStatus[] = [];
  for (const index of names) {
    const rows = await countRows(db, index);
    let docs: number | null;
    try {
      docs = await engine.count(index);
    } catch {
      docs = null;
    }
    indexes.push({ index, rows, docs });
  }
  return { engine: engine.kind, indexes, outbox: await outboxLag(db) };
}
