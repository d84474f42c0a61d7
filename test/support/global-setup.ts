/**
 * One PostgreSQL server for the whole run: `DATABASE_URL` when set (CI's external pass), else an
 * embedded server under a temporary directory. A migrated template database lets each test file
 * clone its own database in a fraction of a second. The programs the tests start as processes are
 * built once (`programs.ts`), and a stopped cluster is made for their fresh DATA_DIRs to start
 * from (`postgres-template.ts`). What a run needs besides (the test certificate, the DSL schemas) is
 * `run-setup.ts`, all that `npm run test:quick` sets up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../../src/db/client.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { runMigrations } from '../../src/db/migrate.js';
import { copyPostgresTemplate, makePostgresTemplate } from './postgres-template.js';
import { buildPrograms } from './programs.js';
import { setup as prepareRun } from './run-setup.js';

export const TEMPLATE = 'tagwise_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
  }
}

let embedded: EmbeddedPostgres | undefined;

let dataDir: string | undefined;

let template: Awaited<ReturnType<typeof makePostgresTemplate>> | undefined;

export async function setup(project: TestProject) {
  prepareRun();
  [template] = await Promise.all([makePostgresTemplate(), buildPrograms()]);
  project.provide('postgresTemplate', template.dir);
  let url = process.env.DATABASE_URL;
  if (!url) {
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-test-'));
    copyPostgresTemplate(dataDir, template.dir);
    embedded = await startEmbeddedPostgres(dataDir);
    url = embedded.url;
  }
  const admin = postgres(url, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists ${TEMPLATE} with (force)`);
  await admin.unsafe(`create database ${TEMPLATE}`);
  await admin.end();
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${TEMPLATE}`;
  const db = createDatabase(templateUrl.toString(), { max: 1 });
  await runMigrations(db);
  await db.$client.end();
  project.provide('pgServerUrl', url);
}

export async function teardown() {
  await embedded?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  template?.remove();
}
