import { randomBytes } from 'node:crypto';
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
  if (!url) throw new Error('no test database server: is test/support/global-setup.ts configured?');
  return url;
}

/** A fresh, migrated database of its own, cloned from the template. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const base = serverUrl();
  const name = `tagwise_test_${randomBytes(5).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name} template ${TEMPLATE}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = createDatabase(url.toString(), { max: 5 });
  return {
    db,
    url: url.toString(),
    drop: async () => {
      await db.$client.end({ timeout: 5 });
      const a = postgres(base, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}
