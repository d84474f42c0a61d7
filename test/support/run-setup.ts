/**
 * What every test run needs before its workers start, with or without a database: the test https
 * servers' certificate trusted, and the query DSL's JSON Schemas generated. `npm run test:quick`
 * runs only this; `npm test` runs it from `global-setup.ts`, which adds the PostgreSQL server.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateDslSchemas } from './generate-dsl-schema.js';

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

export function setup() {
  trustTestCertificate();
  // Compiled queries are checked against schemas generated from the client's types; make them
  // once here rather than racing to make them in several workers.
  generateDslSchemas();
}
