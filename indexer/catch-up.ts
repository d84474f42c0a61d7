/**
 * Readiness at start beside a shared engine: the engine holds what the database held when the
 * process started serving once every outbox row written before then is applied (whichever process
 * applied it) and no index is empty while its table has rows (a first fill, which leaves no
 * outbox rows, is done). Changes committed after the start do not hold the process back: from
 * then on lag is reported, not waited for.
 */
import type { Database } from '../src/db/client.js';
import type { SearchEngine } from '../src/search/engine.js';
import { indexNames, type IndexName } from '../src/search/indexes/index.js';
import { countRows } from '../src/contexts/search/documents/load.js';

/**
 * Resolves once the engine has caught up with the outbox as it stands now; polls every `pollMs`,
 * through failures of the database or the engine (the check is tried again).
 */
export async function waitForCatchUp(db: Database, engine: SearchEngine, options: { pollMs?: number; signal?: AbortSignal } = {}): Promise<void> {
  let position: number | undefined;
  const filled = new Set<IndexName>();
  for (;;) {
    if (options.signal?.aborted) throw new Error('stopped before the index caught up');
    try {
      position ??= await outboxPosition(db);
      if (!(await pendingThrough(db, position))) {
        for (const name of indexNames) {
          if (!filled.has(name) && ((await engine.count(name)) > 0 || (await countRows(db, name)) === 0)) filled.add(name);
        }
        if (filled.size === indexNames.length) return;
      }
    } catch {
      // the database or the engine is down: readiness says so on its own; try again
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 500));
  }
}

async function outboxPosition(db: Database): Promise<number> {
  const [row] = await db.$client.unsafe<{ position: number | null }[]>('select max(id)::float8 as position from search_outbox');
  return row?.position ?? 0;
}

async function pendingThrough(db: Database, position: number): Promise<boolean> {
  const [row] = await db.$client.unsafe<{ pending: boolean }[]>('select exists (select 1 from search_outbox where id <= $1) as pending', [position]);
  return row?.pending === true;
}
