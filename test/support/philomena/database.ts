/** A Philomena-shaped database of its own on the test server. */
import { randomBytes } from 'node:crypto';
import postgres, { type Sql } from 'postgres';
import { inject } from 'vitest';
import { createPhilomenaSchema, fillPhilomenaDatabase, type Dialect, type FixtureRows } from './schema.js';

export interface PhilomenaDatabase {
  url: string;
  sql: Sql;
  drop(): Promise<void>;
}

export async function createPhilomenaDatabase(dialect: Dialect, rows: FixtureRows): Promise<PhilomenaDatabase> {
  const base = inject('pgServerUrl');
  const name = `philomena_${randomBytes(5).toString('hex')}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  const sql = postgres(url.toString(), { max: 2, onnotice: () => {} });
  await createPhilomenaSchema(sql, dialect);
  await fillPhilomenaDatabase(sql, dialect, rows);
  return {
    url: url.toString(),
    sql,
    drop: async () => {
      await sql.end({ timeout: 5 });
      const a = postgres(base, { max: 1, onnotice: () => {} });
      await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.end();
    },
  };
}
