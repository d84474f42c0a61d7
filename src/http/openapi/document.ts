/**
 * The OpenAPI 3.1 document of the JSON API, built from the zod schemas of `src/api/schemas/` (component
 * schemas through `z.toJSONSchema` with the draft 2020-12 target, which is OpenAPI 3.1's schema
 * dialect), and the operations listed in `operations.ts`: paths, parameters as components,
 * answers by status.
 */
import { z } from 'zod';
import type { Config } from '../../config.js';
import { API_PREFIX } from '../request/api-prefix.js';
import * as S from '../../api/schemas/index.js';
import { documentDescription } from './descriptions.js';
import { OPERATIONS, pathParamNames } from './operations.js';
import { HEADERS, type OperationSpec } from './spec.js';

export const OPENAPI_VERSION = '3.1.0';
export const OPENAPI_PATH = '/api/v1/openapi.json';
export const DOCS_PATH = '/api/docs';

type Json = Record<string, unknown>;

const schemaRef = (name: string) => `#/components/schemas/${name}`;

function idOf(schema: z.ZodType): string | undefined {
  const meta = z.globalRegistry.get(schema) as { id?: unknown } | undefined;
  return typeof meta?.id === 'string' ? meta.id : undefined;
}

function descriptionOf(schema: z.ZodType): string | undefined {
  const meta = z.globalRegistry.get(schema) as { description?: unknown } | undefined;
  return typeof meta?.description === 'string' ? meta.description : undefined;
}

function stripDialect(schema: Json): Json {
  const { $schema: _s, $id: _i, ...rest } = schema;
  return rest;
}

/** Every schema an operation uses that is not a component itself (unions, path parameters). */
function inlineSchemas(): z.ZodType[] {
  const out = new Set<z.ZodType>();
  const add = (schema: z.ZodType) => {
    if (!idOf(schema)) out.add(schema);
  };
  for (const op of OPERATIONS) {
    for (const name of pathParamNames(op.path)) {
      const schema = S.pathParams[name as S.PathParamName];
      if (!schema) throw new Error(`${op.path}: no schema for path parameter ${name}`);
      add(schema);
    }
    for (const spec of Object.values(op.responses)) if (spec.schema) add(spec.schema);
    for (const schema of Object.values(op.requestBody?.content ?? {})) add(schema);
  }
  return [...out];
}

interface Converted {
  /** Component schemas by name. */
  schemas: Record<string, Json>;
  /** The JSON Schema of a schema as an operation uses it: a `$ref` for components. */
  json(schema: z.ZodType): Json;
}

/**
 * One conversion of every schema the document uses: components by their ids, the others under
 * temporary ids, so that components nested anywhere become `$ref`s to `components.schemas`.
 */
function convertSchemas(): Converted {
  const registry = z.registry<{ id: string }>();
  for (const schema of S.componentSchemas) {
    const id = idOf(schema);
    if (!id) throw new Error('a component schema has no id');
    if (registry._idmap.has(id)) throw new Error(`component id ${id} is used twice`);
    registry.add(schema, { id });
  }
  const inline = new Map<z.ZodType, string>();
  inlineSchemas().forEach((schema, i) => {
    inline.set(schema, `__inline_${i}`);
    registry.add(schema, { id: `__inline_${i}` });
  });
  const out = z.toJSONSchema(registry, { target: 'draft-2020-12', uri: schemaRef, unrepresentable: 'throw' }) as {
    schemas: Record<string, Json>;
  };
  if ('__shared' in out.schemas) throw new Error('schemas share unnamed definitions; name them');
  const schemas: Record<string, Json> = {};
  const inlined: Record<string, Json> = {};
  for (const [name, schema] of Object.entries(out.schemas)) {
    if (name.startsWith('__inline_')) inlined[name] = stripDialect(schema);
    else schemas[name] = stripDialect(schema);
  }
  return {
    schemas,
    json(schema) {
      const id = idOf(schema);
      if (id && schemas[id]) return { $ref: schemaRef(id) };
      const tmp = inline.get(schema);
      const converted = tmp ? inlined[tmp] : undefined;
      if (!converted) throw new Error('a schema used by an operation was not converted');
      return converted;
    },
  };
}

/** A parameter's own schema, and whether a request must carry it (those with a default need not). */
const unwrapOptional = (field: z.ZodType): { inner: z.ZodType; required: boolean } => {
  if (field instanceof z.ZodOptional) return { inner: field.unwrap() as z.ZodType, required: false };
  return { inner: field, required: !(field instanceof z.ZodDefault) };
};

function parameterObjects(op: OperationSpec, converted: Converted): Json[] {
  const out: Json[] = [];
  for (const name of pathParamNames(op.path)) {
    const schema = S.pathParams[name as S.PathParamName];
    out.push({ name, in: 'path', required: true, description: descriptionOf(schema), schema: converted.json(schema) });
  }
  for (const [name, field] of Object.entries(op.query.shape as Record<string, z.ZodType>)) {
    if (name === 'key') continue; // the security scheme
    const id = idOf(unwrapOptional(field).inner);
    if (!id) throw new Error(`${op.path}: query parameter ${name} has no component`);
    out.push({ $ref: `#/components/parameters/${id}` });
  }
  return out;
}

/** Query parameters are components named like their schemas (`Page`, `PerPage`, …). */
function parameterComponents(converted: Converted): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    for (const [name, field] of Object.entries(op.query.shape as Record<string, z.ZodType>)) {
      if (name === 'key') continue;
      const { inner, required } = unwrapOptional(field);
      const id = idOf(inner)!;
      const param: Json = { name, in: 'query', required, description: descriptionOf(inner), schema: converted.json(inner) };
      const existing = out[id];
      if (existing && JSON.stringify(existing) !== JSON.stringify(param)) throw new Error(`query parameter ${id} is defined in two ways`);
      out[id] = param;
    }
  }
  return out;
}

function responseObjects(op: OperationSpec, converted: Converted): Json {
  const out: Json = {};
  for (const [status, spec] of Object.entries(op.responses)) {
    const response: Json = { description: spec.description };
    if (spec.headers) response.headers = Object.fromEntries(spec.headers.map((h) => [h, { $ref: `#/components/headers/${h}` }]));
    if (spec.schema) response.content = { [spec.contentType ?? 'application/json']: { schema: converted.json(spec.schema) } };
    out[status] = response;
  }
  return out;
}

export type OpenApiOptions = Pick<Config, 'baseUrl' | 'siteName'>;

/** The OpenAPI 3.1 document of the API. */
export function buildOpenApiDocument(config: OpenApiOptions): Json {
  const converted = convertSchemas();
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    const item = (paths[op.path] ??= {});
    if (item[op.method]) throw new Error(`${op.method.toUpperCase()} ${op.path} is listed twice`);
    const operation: Json = {
      operationId: op.operationId,
      tags: [op.tag],
      summary: op.summary,
      description: op.description,
      parameters: parameterObjects(op, converted),
      security: op.key === 'required' ? [{ apiKey: [] }] : [{}, { apiKey: [] }],
      responses: responseObjects(op, converted),
    };
    if (op.requestBody) {
      operation.requestBody = {
        required: op.requestBody.required,
        description: op.requestBody.description,
        content: Object.fromEntries(
          Object.entries(op.requestBody.content).map(([type, schema]) => [type, { schema: converted.json(schema) }]),
        ),
      };
    }
    item[op.method] = operation;
  }
  return {
    openapi: OPENAPI_VERSION,
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: `${config.siteName} API`,
      version: '1.0.0',
      summary: 'A Philomena-compatible JSON API for an image board.',
      description: documentDescription(config),
      license: { name: 'AGPL-3.0-or-later', identifier: 'AGPL-3.0-or-later' },
    },
    servers: [{ url: `${config.baseUrl.replace(/\/+$/, '')}${API_PREFIX}`, description: 'This service.' }],
    tags: [
      { name: 'Images', description: 'Images and image submission.' },
      { name: 'Comments', description: 'Comments on images.' },
      { name: 'Tags', description: 'Tags.' },
      { name: 'Users', description: 'User profiles.' },
      { name: 'Filters', description: 'Filters: what a caller sees hidden or spoilered.' },
      { name: 'Forums', description: 'Forums, topics and posts.' },
      { name: 'Search', description: 'Search of every index, and reverse image search.' },
      { name: 'oEmbed', description: 'oEmbed for image links.' },
    ],
    paths,
    components: {
      schemas: converted.schemas,
      parameters: parameterComponents(converted),
      headers: HEADERS,
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'query',
          name: 'key',
          description:
            'The API key from the account settings. Optional on most operations (anonymous without it); required for `POST /images` (401 without) and `GET /filters/user` (403 without).',
        },
      },
    },
  };
}
