/**
 * The OpenAPI document: OpenAPI 3.1 structure, every reference resolving, every schema valid
 * JSON Schema 2020-12, every route of the spec's operations table present with its method, and
 * the served document and documentation page (which must load nothing from elsewhere).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument, DOCS_PATH, OPENAPI_PATH } from '../../src/http/openapi/document.js';
import { matchOperation, OPERATIONS, pathParamNames } from '../../src/http/openapi/operations.js';
import { docsScript } from '../../src/http/routes/openapi.js';
import * as S from '../../src/api/schemas/index.js';
import { BASE_URL, SITE_NAME, startHarness, type Harness } from '../http/harness.js';
import { OPENAPI_31_DOCUMENT_SCHEMA } from './oas31.js';

type Json = Record<string, any>;

/** The spec's operations table (spec/api.md "Operations"), plus the reference's other routes. */
const SPEC_OPERATIONS = [
  ['GET', '/comments/:comment_id'],
  ['GET', '/images/:image_id'],
  ['POST', '/images'],
  ['GET', '/images/featured'],
  ['GET', '/tags/:tag_id'],
  ['GET', '/posts/:post_id'],
  ['GET', '/profiles/:user_id'],
  ['GET', '/filters/:filter_id'],
  ['GET', '/filters/system'],
  ['GET', '/filters/user'],
  ['GET', '/oembed'],
  ['GET', '/search/comments'],
  ['GET', '/search/galleries'],
  ['GET', '/search/posts'],
  ['GET', '/search/images'],
  ['GET', '/search/tags'],
  ['POST', '/search/reverse'],
  ['GET', '/forums'],
  ['GET', '/forums/:short_name'],
  ['GET', '/forums/:short_name/topics'],
  ['GET', '/forums/:short_name/topics/:topic_slug'],
  ['GET', '/forums/:short_name/topics/:topic_slug/posts'],
  ['GET', '/forums/:short_name/topics/:topic_slug/posts/:post_id'],
] as const;
const OTHER_OPERATIONS = [
  ['GET', '/search'],
  ['GET', '/search/filters'],
  ['GET', '/search/explain'],
  ['GET', '/filters/explain'],
  ['GET', '/filters/:filter_id/explain'],
  ['GET', '/filters/test'],
  ['GET', '/filters/images'],
  ['POST', '/filters'],
  ['POST', '/filters/:filter_id'],
  ['GET', '/autocomplete/tags'],
  ['GET', '/search/images/live'],
  ['GET', '/changes'],
] as const;

const toTemplate = (path: string) => path.replace(/:([a-z_]+)/g, '{$1}');

const doc = buildOpenApiDocument({ baseUrl: BASE_URL, siteName: SITE_NAME }) as Json;

function* walk(node: unknown, path: string[] = []): Generator<{ path: string[]; value: unknown; key: string }> {
  if (node === null || typeof node !== 'object') return;
  for (const [key, value] of Object.entries(node)) {
    yield { path, value, key };
    yield* walk(value, [...path, key]);
  }
}

function resolvePointer(root: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  return ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((cur, key) => (cur !== null && typeof cur === 'object' ? (cur as Json)[key] : undefined), root);
}

const operations = () =>
  Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json).map(([method, op]) => ({ path, method, op: op as Json })),
  );

describe('the OpenAPI document', () => {
  it('has the structure of an OpenAPI 3.1 document', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const validate = ajv.compile(OPENAPI_31_DOCUMENT_SCHEMA);
    const valid = validate(doc);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // The structure check is not vacuous: each of these breaks it.
    const broken: [string, (d: Json) => void][] = [
      ['no info.version', (d) => delete d.info.version],
      ['openapi 3.0', (d) => (d.openapi = '3.0.3')],
      ['a response without description', (d) => delete d.paths['/images/{image_id}'].get.responses['404'].description],
      ['an optional path parameter', (d) => (d.paths['/images/{image_id}'].get.parameters[0].required = false)],
      ['an operation without responses', (d) => (d.paths['/forums'].get.responses = {})],
      ['an unknown operation field', (d) => (d.paths['/forums'].get.result = 1)],
      ['a bad component name', (d) => (d.components.schemas['a b'] = {})],
      ['an apiKey scheme without name', (d) => delete d.components.securitySchemes.apiKey.name],
      ['a parameter in the body', (d) => (d.components.parameters.Page.in = 'body')],
    ];
    for (const [what, mutate] of broken) {
      const copy = JSON.parse(JSON.stringify(doc));
      mutate(copy);
      expect(validate(copy), what).toBe(false);
    }
    expect(doc.info).toMatchObject({ title: `${SITE_NAME} API`, version: expect.any(String) });
    expect(doc.servers).toEqual([{ url: `${BASE_URL}/api/v1/json`, description: expect.any(String) }]);
  });

  it('resolves every $ref inside the document', () => {
    const refs = [...walk(doc)].filter((n) => n.key === '$ref');
    expect(refs.length).toBeGreaterThan(100);
    const broken = refs.filter((r) => resolvePointer(doc, r.value as string) === undefined).map((r) => `${r.path.join('/')} → ${String(r.value)}`);
    expect(broken).toEqual([]);
  });

  it('has only valid JSON Schema 2020-12 schemas, every component used, names unique', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    for (const [name, schema] of Object.entries(doc.components.schemas as Json)) {
      expect(ajv.validateSchema(schema), `${name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
    }
    const ids = S.componentSchemas.map((s) => (z.globalRegistry.get(s) as { id?: string } | undefined)?.id);
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(doc.components.schemas).sort()).toEqual([...ids].sort());
    const referenced = new Set([...walk(doc)].filter((n) => n.key === '$ref').map((n) => String(n.value)));
    // `Key` documents the security scheme's parameter; everything else is referenced.
    const unused = Object.keys(doc.components.schemas).filter((n) => n !== 'Key' && !referenced.has(`#/components/schemas/${n}`));
    expect(unused).toEqual([]);
  });

  it('gives every operation an id, a summary, a success answer, its path parameters and the key scheme', () => {
    const ids = new Set<string>();
    for (const { path, method, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toEqual(expect.any(String));
      expect(ids.has(op.operationId), `${where}: duplicate operationId`).toBe(false);
      ids.add(op.operationId);
      expect(op.summary, where).toEqual(expect.any(String));
      expect(Object.keys(op.responses), where).toContain('200');
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const r = (response as Json).$ref ? (resolvePointer(doc, (response as Json).$ref) as Json) : (response as Json);
        // The live search's stream is the one answer that is not JSON.
        const type = path === '/search/images/live' && status === '200' ? 'text/event-stream' : 'application/json';
        if (status !== '304') expect(r.content?.[type]?.schema, `${where} ${status}`).toBeDefined();
      }
      const params = (op.parameters as Json[]).map((p) => (p.$ref ? (resolvePointer(doc, p.$ref) as Json) : p));
      const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
      expect(pathParams.sort(), where).toEqual(pathParamNames(path).sort());
      expect(new Set(params.map((p) => `${p.in}:${p.name}`)).size, `${where}: duplicate parameter`).toBe(params.length);
      expect(op.security, where).toContainEqual({ apiKey: [] });
    }
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'query', name: 'key' });
  });

  it('lists every route of the spec with its method, and the reference\'s other search routes', () => {
    for (const [method, path] of [...SPEC_OPERATIONS, ...OTHER_OPERATIONS]) {
      const template = toTemplate(path);
      expect(doc.paths[template]?.[method.toLowerCase()], `${method} ${path}`).toBeDefined();
    }
    expect(operations()).toHaveLength(SPEC_OPERATIONS.length + OTHER_OPERATIONS.length);
    // The key is required exactly where the spec says so.
    expect(doc.paths['/images'].post.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths['/filters/user'].get.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths['/images/{image_id}'].get.security).toEqual([{}, { apiKey: [] }]);
  });

  it('documents the parameters each route reads', () => {
    const names = (path: string, method = 'get') =>
      (doc.paths[path][method].parameters as Json[]).map((p) => (p.$ref ? (resolvePointer(doc, p.$ref) as Json) : p).name).sort();
    expect(names('/search/images')).toEqual(['del', 'filter_id', 'hidden', 'page', 'per_page', 'q', 'sd', 'sf']);
    expect(names('/search/comments')).toEqual(['filter_id', 'page', 'per_page', 'q']);
    expect(names('/search/reverse', 'post')).toEqual(['distance', 'limit', 'url']);
    expect(names('/images/{image_id}')).toEqual(['filter_id', 'image_id']);
    expect(names('/forums/{short_name}/topics')).toEqual(['page', 'per_page', 'short_name']);
    expect(names('/oembed')).toEqual(['url']);
    expect(names('/images', 'post')).toEqual(['url']);
    expect(doc.components.parameters.PerPage.schema).toEqual({ $ref: '#/components/schemas/PerPage' });
    expect(doc.components.schemas.PerPage).toMatchObject({ type: 'integer', minimum: 1, maximum: 50, default: 25 });
    expect(doc.components.schemas.SortDirection).toMatchObject({ enum: ['desc', 'asc'] });
  });

  it('describes answers per status, the usage terms and the search language', () => {
    const image = doc.paths['/images/{image_id}'].get.responses;
    expect(Object.keys(image).sort()).toEqual(['200', '304', '403', '404', '429', '500']);
    const submit = doc.paths['/images'].post.responses;
    expect(Object.keys(submit).sort()).toEqual(['200', '400', '401', '403', '413', '415', '429', '500', '503']);
    expect(submit['400'].content['application/json'].schema.anyOf).toContainEqual({ $ref: '#/components/schemas/ImageErrorsResponse' });
    expect(doc.paths['/search/images'].get.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/QueryError' });
    const text = doc.info.description as string;
    for (const phrase of ['Cache', 'Back off', 'ban', 'https', 'artist', 'Retry-After', 'If-None-Match', '## Search language', '`||`', '`.gte:`', 'my:faves', 'Imbalanced parentheses.']) {
      expect(text).toContain(phrase);
    }
    expect(doc.paths['/search/tags'].get.description).toContain('`images`');
  });

  it('states the image shape of the spec: all eight representations, RFC 3339 datetimes, nulls as stated', () => {
    const image = doc.components.schemas.Image as Json;
    const reps = doc.components.schemas.Representations as Json;
    expect(reps.required.sort()).toEqual(['full', 'large', 'medium', 'small', 'tall', 'thumb', 'thumb_small', 'thumb_tiny']);
    expect(reps.properties.full).toMatchObject({ type: 'string', format: 'uri', pattern: '^https?://' });
    expect(image.properties.created_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(new RegExp(image.properties.created_at.pattern).test('2024-05-01T10:20:30Z')).toBe(true);
    expect(new RegExp(image.properties.created_at.pattern).test('2024-05-01T10:20:30+00:00')).toBe(false);
    expect(new RegExp(image.properties.created_at.pattern).test('2024-05-01T10:20:30.123Z')).toBe(false);
    const nullable = (schema: Json) => JSON.stringify(schema).includes('"null"');
    const nullableFields = Object.entries(image.properties as Json).filter(([, s]) => nullable(s as Json)).map(([k]) => k).sort();
    expect(nullableFields).toEqual(['deletion_reason', 'duplicate_of', 'intensities', 'uploader', 'uploader_id']);
    expect(image.additionalProperties).toBe(false);
    expect(doc.components.schemas.Gallery.required).toEqual(expect.arrayContaining(['user', 'user_id', 'creator', 'creator_id']));
  });

  it('finds the operation of a concrete path as the router does', () => {
    expect(matchOperation('GET', '/images/featured')?.operationId).toBe('getFeaturedImage');
    expect(matchOperation('GET', '/images/12')?.operationId).toBe('getImage');
    expect(matchOperation('GET', '/filters/user')?.operationId).toBe('listUserFilters');
    expect(matchOperation('GET', '/filters/3')?.operationId).toBe('getFilter');
    expect(matchOperation('GET', '/forums/dis/topics/a/posts/3')?.operationId).toBe('getTopicPost');
    expect(matchOperation('POST', '/images')?.operationId).toBe('submitImage');
    expect(matchOperation('GET', '/search/reverse')).toBeUndefined();
    expect(OPERATIONS.length).toBe(operations().length);
  });
});

describe('served', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  it(`GET ${OPENAPI_PATH} answers the document, cacheable, with CORS`, async () => {
    const res = await h.request(OPENAPI_PATH);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toMatch(/^public, max-age=\d+/);
    expect(res.headers.get('etag')).toBeTruthy();
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(doc)));
    const again = await h.request(OPENAPI_PATH, { headers: { 'if-none-match': res.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it(`GET ${DOCS_PATH} is a self-contained page: its own script and style, nothing from elsewhere`, async () => {
    const page = await h.request(DOCS_PATH);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.sort()).toEqual([`${DOCS_PATH}/app.css`, `${DOCS_PATH}/app.js`, OPENAPI_PATH, OPENAPI_PATH].sort());
    const bodies = [html];
    for (const asset of [`${DOCS_PATH}/app.js`, `${DOCS_PATH}/app.css`]) {
      const res = await h.request(asset);
      expect(res.status, asset).toBe(200);
      expect(res.headers.get('content-type'), asset).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      bodies.push(await res.text());
    }
    for (const body of bodies) {
      // No absolute or protocol-relative URL, no import, no external font or image.
      expect(body).not.toMatch(/\b[a-z][a-z0-9+.-]*:\/\/|(?:^|[\s"'(=])\/\/[a-z0-9]|@import|url\(/i);
    }
    expect(bodies[1]).toContain(JSON.stringify(OPENAPI_PATH));
  });

  it('ships a page script that parses and uses no HTML parsing of document text', () => {
    expect(() => new Function(docsScript())).not.toThrow();
    expect(docsScript()).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });

  it('renders every operation, parameter and schema of the document (on a minimal DOM)', async () => {
    const { document, text } = fakeDocument();
    let fetched = '';
    const fetchStub = async (url: string) => {
      fetched = url;
      return { ok: true, status: 200, json: async () => JSON.parse(JSON.stringify(doc)) };
    };
    new Function('document', 'fetch', 'location', docsScript())(document, fetchStub, { hash: '' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(fetched).toBe(OPENAPI_PATH);
    const content = text('content');
    expect(text('meta')).toContain('OpenAPI 3.1.0');
    for (const { path, method, op } of operations()) {
      expect(content, `${method} ${path}`).toContain(`${method}${path}${op.summary}`);
    }
    for (const name of Object.keys(doc.components.schemas)) expect(text('toc')).toContain(name);
    expect(content).toContain('Usage terms');
    expect(content).toContain('per_page');
    expect(content).toContain('thumb_tiny');
  });
});

/** Just enough of a DOM for the page script: elements with children, attributes and text. */
function fakeDocument() {
  interface Node {
    tag: string;
    text: string;
    children: Node[];
    attrs: Record<string, string>;
    className: string;
  }
  const make = (tag: string): Node & Record<string, unknown> => {
    const node = {
      tag,
      text: '',
      children: [] as Node[],
      attrs: {} as Record<string, string>,
      className: '',
      get textContent() {
        return node.text + node.children.map((c) => (c as unknown as { textContent: string }).textContent).join('');
      },
      set textContent(value: string) {
        node.text = value;
        node.children = [];
      },
      appendChild(child: Node) {
        node.children.push(child);
        return child;
      },
      setAttribute(name: string, value: string) {
        node.attrs[name] = String(value);
      },
      scrollIntoView() {},
    };
    return node;
  };
  const byId: Record<string, ReturnType<typeof make>> = { meta: make('p'), content: make('main'), toc: make('nav') };
  const document = {
    title: '',
    createElement: make,
    createTextNode: (value: string) => Object.assign(make('#text'), { text: value }),
    getElementById: (id: string) => byId[id] ?? null,
  };
  return { document, text: (id: string) => (byId[id] as unknown as { textContent: string }).textContent };
}
