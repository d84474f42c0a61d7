import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import type { Sql } from 'postgres';

const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Any constant works; it only has to be the same in every process of ours. */
const MIGRATION_LOCK = 7_462_310_001;

/**
 * Apply pending migrations (drizzle-kit's SQL files, recorded in drizzle's own table). Unlike
 * drizzle's migrator, the check of what is applied happens inside the transaction, after an
 * advisory lock: two processes starting at once serialise, and the second finds nothing to do.
 */
export async function runMigrations(db: { $client: Sql }): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder });
  await db.$client.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${MIGRATION_LOCK})`;
    await tx`create schema if not exists drizzle`;
    await tx`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`;
    const [last] = await tx`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`;
    const appliedUpTo = last ? Number(last.created_at) : -Infinity;
    for (const migration of migrations) {
      if (migration.folderMillis <= appliedUpTo) continue;
      for (const statement of migration.sql) {
        if (statement.trim()) await tx.unsafe(statement);
      }
      await tx`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`;
    }
  });
}
