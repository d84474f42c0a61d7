/**
 * Generates JSON Schemas of the OpenSearch query DSL and search request body from the official
 * client's own TypeScript types (`@opensearch-project/opensearch`), so runtime validation always
 * matches the installed client version.
 *
 * Output (gitignored): test/support/generated/query-container.schema.json and
 * search-body.schema.json. Regeneration is skipped while both are newer than the client package
 * and this script. Runs as the `pretest` script; `dsl-schema.ts` also calls it on first use.
 *
 * One patch is applied after generation: the types cannot say "exactly one key", so
 * `QueryContainer` and each of its field-map properties (`term`, `range`, `wildcard`, ...) get
 * `minProperties: 1, maxProperties: 1`.
 */
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Loaded only when generating: it pulls in a whole TypeScript compiler (seconds to import).
const require = createRequire(import.meta.url);
type GeneratorModule = typeof import('ts-json-schema-generator');

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const clientDir = join(root, 'node_modules/@opensearch-project/opensearch');
const apiTypes = join(clientDir, 'api');

export const GENERATED_DIR = join(here, 'generated');
export const QUERY_SCHEMA_PATH = join(GENERATED_DIR, 'query-container.schema.json');
export const BODY_SCHEMA_PATH = join(GENERATED_DIR, 'search-body.schema.json');

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `minProperties/maxProperties: 1` on QueryContainer and on its field-map properties. */
export function patchSchema(schema: JsonObject): string[] {
  const definitions = schema.definitions;
  if (!isObject(definitions)) throw new Error('generated schema has no definitions');
  const qc = definitions.QueryContainer;
  if (!isObject(qc) || !isObject(qc.properties)) throw new Error('generated schema has no QueryContainer');
  qc.minProperties = 1;
  qc.maxProperties = 1;
  const patched: string[] = [];
  for (const [name, prop] of Object.entries(qc.properties)) {
    if (isObject(prop) && prop.type === 'object' && prop.additionalProperties !== undefined && prop.properties === undefined) {
      prop.minProperties = 1;
      prop.maxProperties = 1;
      patched.push(name);
    }
  }
  return patched;
}

function generate(path: string, type: string): JsonObject {
  const { createGenerator } = require('ts-json-schema-generator') as GeneratorModule;
  const generator = createGenerator({
    path,
    type,
    skipTypeCheck: true,
    tsconfig: join(root, 'tsconfig.json'),
    additionalProperties: false,
  });
  return generator.createSchema(type) as unknown as JsonObject;
}

function writeAtomically(path: string, value: unknown): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value, null, 1) + '\n');
  renameSync(tmp, path);
}

function isFresh(): boolean {
  if (!existsSync(QUERY_SCHEMA_PATH) || !existsSync(BODY_SCHEMA_PATH)) return false;
  const inputs = [join(clientDir, 'package.json'), fileURLToPath(import.meta.url)].map((p) => statSync(p).mtimeMs);
  const newestInput = Math.max(...inputs);
  return [QUERY_SCHEMA_PATH, BODY_SCHEMA_PATH].every((p) => statSync(p).mtimeMs > newestInput);
}

/** Generates the schemas unless fresh ones exist; returns whether it generated. */
export function generateDslSchemas(options: { force?: boolean; log?: (line: string) => void } = {}): boolean {
  if (!options.force && isFresh()) return false;
  const log = options.log ?? (() => {});
  const started = Date.now();
  mkdirSync(GENERATED_DIR, { recursive: true });

  const query = generate(join(apiTypes, '_types/_common.query_dsl.d.ts'), 'QueryContainer');
  const patchedQuery = patchSchema(query);
  const body = generate(join(apiTypes, '_core/search.d.ts'), 'Search_RequestBody');
  patchSchema(body);

  writeAtomically(QUERY_SCHEMA_PATH, query);
  writeAtomically(BODY_SCHEMA_PATH, body);
  log(
    `DSL schemas generated in ${Date.now() - started} ms ` +
      `(QueryContainer: ${Object.keys(query.definitions as JsonObject).length} definitions, ` +
      `${patchedQuery.length} field maps patched; Search_RequestBody: ` +
      `${Object.keys(body.definitions as JsonObject).length} definitions)`,
  );
  return true;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const force = process.argv.includes('--force');
  if (!generateDslSchemas({ force, log: (line) => console.log(line) })) {
    console.log('DSL schemas are up to date');
  }
}
