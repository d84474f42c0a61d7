/**
 * The demo board of a first start, made once however many API processes start together on the
 * empty database: the first to take a session advisory lock seeds while the others wait on the
 * lock, then find the board filled and serve it. The seed commits in one transaction, so a
 * process that dies while seeding leaves the board empty and its lock released: the next one
 * seeds.
 */
import type { Database } from '../db/client.js';
import { isBoardEmpty, seedDemoBoard, type DemoOptions } from './demo.js';

/** Advisory lock key (bigint space, "tagw" + a number), beside the indexer's and the dumps'. */
export const DEMO_SEED_LOCK = 0x7461_6777_0004;

/** Fill the board with demo data if it is empty; resolves to whether this process did it. */
export async function seedDemoBoardOnce(db: Database, options: DemoOptions, log?: (msg: string) => void): Promise<boolean> {
  if (!(await isBoardEmpty(db))) return false;
  // a connection of its own holds the lock for the whole seed, which runs on the pool
  const session = await db.$client.reserve();
  try {
    const [free] = await session.unsafe<{ ok: boolean }[]>('select pg_try_advisory_lock($1::bigint) as ok', [DEMO_SEED_LOCK]);
    if (!free?.ok) {
      log?.('another process is creating the demo board: waiting for it');
      await session.unsafe('select pg_advisory_lock($1::bigint)', [DEMO_SEED_LOCK]);
    }
    try {
      if (!(await isBoardEmpty(db))) return false;
      log?.('empty board: creating the demo board');
      await seedDemoBoard(db, options);
      return true;
    } finally {
      await session.unsafe('select pg_advisory_unlock($1::bigint)', [DEMO_SEED_LOCK]);
    }
  } finally {
    session.release();
  }
}
