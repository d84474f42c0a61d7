import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrate } from 'drizzle-orm/postgres-js/migrator';
import type { Database } from './client.js';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Any constant works; it only has to be the same in every process of ours. */
const MIGRATION_LOCK = 7_462_310_001;

/**
 * Apply pending migrations. Two processes starting at once serialise on an advisory lock; the
 * second finds nothing left to do.
 */
export async function runMigrations(db: Database): Promise<void> {
  const reserved = await db.$client.reserve();
  try {
    await reserved`select pg_advisory_lock(${MIGRATION_LOCK})`;
    // drizzle's migrator opens its own transaction on the pool; the session lock above keeps
    // other processes out until it is done.
    await migrate(db, { migrationsFolder });
  } finally {
    await reserved`select pg_advisory_unlock(${MIGRATION_LOCK})`;
    reserved.release();
  }
}
