/**
 * A stopped embedded PostgreSQL cluster, initialised once per test run, that a service test's
 * fresh DATA_DIR starts from instead of running initdb (a second or more of CPU and a few of
 * waiting, for each of the suite's fresh services). A copy is the cluster the service would have
 * made (same user, password, settings and database), so the service starts it as its own. Every
 * copy has the same system identifier; tests that need a cluster of its own (a first start as a
 * user sees it) ask for a fresh one.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { startEmbeddedPostgres } from '../../src/db/embedded-postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresTemplate: string;
  }
}

/** Make the template (global setup): start a cluster in a new directory, stop it, keep its files. */
export async function makePostgresTemplate(): Promise<{ dir: string; remove(): void }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tagwise-pg-template-'));
  const server = await startEmbeddedPostgres(dataDir);
  await server.stop();
  return { dir: join(dataDir, 'postgres'), remove: () => rmSync(dataDir, { recursive: true, force: true }) };
}

/** Give a fresh DATA_DIR the template's cluster (owners and modes kept), unless it has one. */
export function copyPostgresTemplate(dataDir: string, template = inject('postgresTemplate')): void {
  const target = join(dataDir, 'postgres');
  if (existsSync(target)) return;
  execFileSync('cp', ['-a', template, target]);
}
