/**
 * The structure of an OpenAPI 3.1 document, as a JSON Schema written from the OpenAPI 3.1.0
 * specification text (the official schema is not vendored and is not downloaded). It covers the
 * objects our document uses — document, info, server, paths and operations, parameters,
 * request bodies, responses, headers, components, security — with their required fields and
 * allowed values; schema objects themselves are checked against the JSON Schema 2020-12
 * meta-schema separately.
 */
const ref = { type: 'object', required: ['$ref'], properties: { $ref: { type: 'string', pattern: '^#/' }, summary: { type: 'string' }, description: { type: 'string' } }, additionalProperties: false };
const def = (name: string) => ({ $ref: `#/$defs/${name}` });
const orRef = (name: string) => ({ if: { type: 'object', required: ['$ref'] }, then: def('reference'), else: def(name) });
const extensible = { patternProperties: { '^x-': {} } };
const componentName = '^[a-zA-Z0-9._-]+$';

const schemaObject = { type: ['object', 'boolean'] };

const header = {
  type: 'object',
  properties: {
    description: { type: 'string' },
    required: { type: 'boolean' },
    deprecated: { type: 'boolean' },
    schema: schemaObject,
    content: { type: 'object' },
  },
  not: { anyOf: [{ required: ['name'] }, { required: ['in'] }] },
  ...extensible,
};

const mediaType = {
  type: 'object',
  properties: { schema: schemaObject, example: {}, examples: { type: 'object' }, encoding: { type: 'object' } },
  additionalProperties: false,
  ...extensible,
};
const content = { type: 'object', additionalProperties: mediaType, propertyNames: { pattern: '^[a-z*]+/[a-z0-9.+*-]+$' } };

const parameter = {
  type: 'object',
  required: ['name', 'in'],
  properties: {
    name: { type: 'string', minLength: 1 },
    in: { enum: ['query', 'header', 'path', 'cookie'] },
    description: { type: 'string' },
    required: { type: 'boolean' },
    deprecated: { type: 'boolean' },
    allowEmptyValue: { type: 'boolean' },
    style: { type: 'string' },
    explode: { type: 'boolean' },
    allowReserved: { type: 'boolean' },
    schema: schemaObject,
    content,
    example: {},
    examples: { type: 'object' },
  },
  // A path parameter must be required; a parameter has a schema or a content, not both.
  allOf: [
    { if: { properties: { in: { const: 'path' } } }, then: { required: ['required'], properties: { required: { const: true } } } },
    { oneOf: [{ required: ['schema'] }, { required: ['content'] }] },
  ],
  additionalProperties: false,
  ...extensible,
};

const response = {
  type: 'object',
  required: ['description'],
  properties: {
    description: { type: 'string' },
    headers: { type: 'object', additionalProperties: orRef('header') },
    content,
    links: { type: 'object' },
  },
  additionalProperties: false,
  ...extensible,
};

const requestBody = {
  type: 'object',
  required: ['content'],
  properties: { description: { type: 'string' }, content, required: { type: 'boolean' } },
  additionalProperties: false,
  ...extensible,
};

const securityRequirement = { type: 'object', additionalProperties: { type: 'array', items: { type: 'string' } } };

const operation = {
  type: 'object',
  properties: {
    tags: { type: 'array', items: { type: 'string' } },
    summary: { type: 'string' },
    description: { type: 'string' },
    operationId: { type: 'string' },
    parameters: { type: 'array', items: orRef('parameter') },
    requestBody: orRef('requestBody'),
    responses: {
      type: 'object',
      minProperties: 1,
      propertyNames: { pattern: '^(default|[1-5](?:[0-9]{2}|XX))$' },
      additionalProperties: orRef('response'),
    },
    callbacks: { type: 'object' },
    deprecated: { type: 'boolean' },
    security: { type: 'array', items: securityRequirement },
    servers: { type: 'array' },
  },
  additionalProperties: false,
  ...extensible,
};

const pathItem = {
  type: 'object',
  properties: {
    summary: { type: 'string' },
    description: { type: 'string' },
    parameters: { type: 'array', items: orRef('parameter') },
    ...Object.fromEntries(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].map((m) => [m, def('operation')])),
  },
  additionalProperties: false,
  ...extensible,
};

const securityScheme = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['apiKey', 'http', 'mutualTLS', 'oauth2', 'openIdConnect'] },
    description: { type: 'string' },
    name: { type: 'string' },
    in: { enum: ['query', 'header', 'cookie'] },
    scheme: { type: 'string' },
    bearerFormat: { type: 'string' },
    flows: { type: 'object' },
    openIdConnectUrl: { type: 'string' },
  },
  allOf: [{ if: { properties: { type: { const: 'apiKey' } } }, then: { required: ['name', 'in'] } }],
  additionalProperties: false,
  ...extensible,
};

const componentMap = (item: object) => ({ type: 'object', propertyNames: { pattern: componentName }, additionalProperties: item });

export const OPENAPI_31_DOCUMENT_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  required: ['openapi', 'info'],
  anyOf: [{ required: ['paths'] }, { required: ['components'] }, { required: ['webhooks'] }],
  properties: {
    openapi: { type: 'string', pattern: '^3\\.1\\.\\d+(-.+)?$' },
    info: {
      type: 'object',
      required: ['title', 'version'],
      properties: {
        title: { type: 'string' },
        summary: { type: 'string' },
        description: { type: 'string' },
        termsOfService: { type: 'string' },
        contact: { type: 'object' },
        license: {
          type: 'object',
          required: ['name'],
          properties: { name: { type: 'string' }, identifier: { type: 'string' }, url: { type: 'string' } },
          not: { required: ['identifier', 'url'] },
        },
        version: { type: 'string' },
      },
      additionalProperties: false,
      ...extensible,
    },
    jsonSchemaDialect: { type: 'string' },
    servers: {
      type: 'array',
      items: { type: 'object', required: ['url'], properties: { url: { type: 'string' }, description: { type: 'string' }, variables: { type: 'object' } }, additionalProperties: false },
    },
    paths: { type: 'object', propertyNames: { pattern: '^/' }, additionalProperties: def('pathItem') },
    webhooks: { type: 'object' },
    components: {
      type: 'object',
      properties: {
        schemas: componentMap(schemaObject),
        responses: componentMap(orRef('response')),
        parameters: componentMap(orRef('parameter')),
        examples: componentMap({ type: 'object' }),
        requestBodies: componentMap(orRef('requestBody')),
        headers: componentMap(orRef('header')),
        securitySchemes: componentMap(orRef('securityScheme')),
        links: componentMap({ type: 'object' }),
        callbacks: componentMap({ type: 'object' }),
        pathItems: componentMap(def('pathItem')),
      },
      additionalProperties: false,
      ...extensible,
    },
    security: { type: 'array', items: securityRequirement },
    tags: {
      type: 'array',
      items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, description: { type: 'string' }, externalDocs: { type: 'object' } }, additionalProperties: false },
    },
    externalDocs: { type: 'object', required: ['url'] },
  },
  additionalProperties: false,
  ...extensible,
  $defs: { reference: ref, header, parameter, response, requestBody, operation, pathItem, securityScheme },
} as const;
