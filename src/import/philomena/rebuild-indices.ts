/**
 * After a first import (which bypasses the search outbox) every index is rebuilt from the rows,
 * as `npm run indexer -- reindex` would.
 */
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { createSearchEngine } from '../../search/create-engine.js';
import { Indexer } from '../../../indexer/index.js';

export async function rebuildIndices(db: Database, config: Config, log: (message: string) => void): Promise<void> {
  const engine = createSearchEngine(config);
  try {
    const indexer = new Indexer({ db, engine, log });
    await indexer.ensureIndexes();
    // The indexer logs each index it builds.
    await indexer.reindex();
    await indexer.syncOnce();
  } finally {
    await engine.flush();
    await engine.close();
  }
}
