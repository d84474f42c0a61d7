/**
 * One PostgreSQL server for the whole run: `DATABASE_URL` when set (CI's external pass), else an
 * embedded server under a temporary directory. A migrated template database lets each test file
 * clone its own database in a fraction of a second.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';
import { createDatabase } from '../../src/db/client.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/db/embedded-postgres.js';
import { runMigrations } from '../../src/db/migrate.js';
import { generateDslSchemas } from './generate-dsl-schema.js';

export const TEMPLATE = 'tagwise_test_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgServerUrl: string;
  }
}

let embedded: EmbeddedPostgres | undefined;

/**
 * Test https servers use a self-signed certificate. Node reads NODE_EXTRA_CA_CERTS when a process
 * starts and test workers start after this point, so they inherit a bundle of the certificates
 * already configured plus ours.
 */
function trustTestCertificate() {
  const ours = readFileSync(fileURLToPath(new URL('../fixtures/tls/cert.pem', import.meta.url)), 'utf8');
  const current = process.env.NODE_EXTRA_CA_CERTS;
  const existing = current && existsSync(current) ? readFileSync(current, 'utf8') : '';
  const bundle = join(mkdtempSync(join(tmpdir(), 'tagwise-ca-')), 'ca.pem');
  writeFileSync(bundle, `${existing}\n${ours}`);
  process.env.NODE_EXTRA_CA_CERTS = bundle;
}
let dataDir: string | undefined;

export async function setup(project: TestProject) {
  trustTestCertificate();
  // Compiled queries are checked against schemas generated from the client's types; make them
  // once here rather than racing to make them in several workers.
  generateDslSchemas();
  let url = process.env.DATABASE_URL;
  if (!url) {
    dataDir = mkdtempSync(join(tmpdir(), 'tagwise-test-'));
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
}
