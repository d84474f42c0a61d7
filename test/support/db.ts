import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import postgres from 'postgres';
import { inject } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';

const TEMPLATE = 'tagwise_test_template';

export interface TestDatabase {
  db: Database;
  url: string;
  /** Close the pool and drop the database. */
  drop(): Promise<void>;
}

function serverUrl(): string {
  const url = inject('pgServerUrl');
  if (!url) throw new Error('no test database server: this file needs PostgreSQL, so it belongs to `npm test`, not `npm run test:quick` (test/support/global-setup.ts starts the server)');
  return url;
}

async function onServer<T>(run: (admin: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(serverUrl(), { max: 1, onnotice: () => {} });
  try {
    return await run(admin);
  } finally {
    await admin.end();
  }
}

/** A database of its own named `tagwise_test_…`, made by `create database <name> <clause>`. */
async function newDatabase(clause: string): Promise<TestDatabase> {
  const name = `tagwise_test_${randomBytes(5).toString('hex')}`;
  await onServer((admin) => admin.unsafe(`create database ${name} ${clause}`));
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const db = createDatabase(url.toString(), { max: 5 });
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.$client.end({ timeout: 5 });
      await onServer((admin) => admin.unsafe(`drop database if exists ${name} with (force)`));
    },
  };
}

/** A fresh, migrated database of its own, cloned from the template. */
export function createTestDatabase(): Promise<TestDatabase> {
  return newDatabase(`template ${TEMPLATE}`);
}

/** A database of its own with nothing in it, not even the migrations: a first start's. */
export function createEmptyTestDatabase(): Promise<TestDatabase> {
  return newDatabase('');
}

const migrationsFolder = fileURLToPath(new URL('../../src/db/migrations', import.meta.url));

/**
 * A database with the migrations up to and including `tag` (a migration's file name without
 * `.sql`) and none after it: the schema as an older release left it, to compare a later
 * migration's behaviour with what it replaced.
 */
export async function createTestDatabaseThrough(tag: string): Promise<TestDatabase> {
  const journal = JSON.parse(readFileSync(`${migrationsFolder}/meta/_journal.json`, 'utf8')) as { entries: { tag: string; when: number }[] };
  const last = journal.entries.find((e) => e.tag === tag);
  if (!last) throw new Error(`no migration ${tag}`);
  const t = await newDatabase('');
  const migrations = readMigrationFiles({ migrationsFolder }).filter((m) => m.folderMillis <= last.when);
  await t.db.$client.begin(async (tx) => {
    for (const statement of migrations.flatMap((m) => m.sql)) {
      if (statement.trim()) await tx.unsafe(statement);
    }
  });
  return t;
}
