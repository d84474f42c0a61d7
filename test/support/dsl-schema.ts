/**
 * Runtime validation of OpenSearch query DSL and search request bodies against JSON Schemas
 * generated from the official client's types (see generate-dsl-schema.ts). Catches what the
 * compile-time types cannot: objects built loosely, two kinds in one container, two fields in one
 * `term`, arrays where a single value belongs.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { BODY_SCHEMA_PATH, QUERY_SCHEMA_PATH, generateDslSchemas } from './generate-dsl-schema.js';

// ajv-formats is CommonJS: its callable export sits on `default` under Node's ESM interop
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv) => Ajv;

let ajv: Ajv | undefined;
const validators = new Map<string, ValidateFunction>();

/** Compiles one schema on first use (generating the schema files first if they are missing). */
function validator(path: string): ValidateFunction {
  let validate = validators.get(path);
  if (validate === undefined) {
    generateDslSchemas();
    if (ajv === undefined) {
      ajv = new Ajv({ strict: false, allErrors: true });
      addFormats(ajv);
    }
    validate = ajv.compile(JSON.parse(readFileSync(path, 'utf8')) as object);
    validators.set(path, validate);
  }
  return validate;
}

function describe(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => {
    const where = e.instancePath === '' ? '(root)' : e.instancePath;
    const params = Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : '';
    return `${where} ${e.message ?? e.keyword}${params}`;
  });
}

/** The schema errors of one query clause (a `QueryContainer`); empty when valid. */
export function validateQuery(query: unknown): string[] {
  const validate = validator(QUERY_SCHEMA_PATH);
  return validate(query) ? [] : describe(validate.errors);
}

/** The schema errors of a whole search request body; empty when valid. */
export function validateSearchBody(body: unknown): string[] {
  const validate = validator(BODY_SCHEMA_PATH);
  return validate(body) ? [] : describe(validate.errors);
}

function fail(what: string, errors: string[], value: unknown): never {
  throw new Error(`Invalid ${what}:\n  ${errors.join('\n  ')}\n${JSON.stringify(value, null, 2)}`);
}

/** Throws, listing the schema errors and the JSON, unless `query` is a valid query clause. */
export function assertValidQuery(query: unknown): void {
  const errors = validateQuery(query);
  if (errors.length > 0) fail('OpenSearch query', errors, query);
}

/** Throws, listing the schema errors and the JSON, unless `body` is a valid search request body. */
export function assertValidSearchBody(body: unknown): void {
  const errors = validateSearchBody(body);
  if (errors.length > 0) fail('OpenSearch search body', errors, body);
}
