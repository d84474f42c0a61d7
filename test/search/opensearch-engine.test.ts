/**
 * The OpenSearch engine against a fake node that records every request: the exact index
 * creation bodies, alias actions, bulk NDJSON, retries and failure reports, search bodies (schema
 * checked) and error messages. Semantics of queries are the embedded engine's tests' business;
 * a real cluster is exercised by opensearch-live.test.ts when OPENSEARCH_URL is set.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from '@opensearch-project/opensearch';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { explainQuery } from '../../src/search/explain.js';
import type { IndexSpec, SearchRequest } from '../../src/search/engine.js';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';
import type { IndexMapping } from '../../src/search/mapping.js';
import {
  BulkWriteError,
  OpenSearchEngine,
  OpenSearchError,
  type OpenSearchEngineOptions,
} from '../../src/search/opensearch/index.js';
import { buildImageSearch, parseImageSort } from '../../src/search/requests/index.js';
import { assertValidQuery, assertValidSearchBody } from '../support/dsl-schema.js';
import { FakeOpenSearch, type RecordedRequest } from '../support/fake-opensearch.js';

const smallMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'integer' },
    width: { type: 'integer' },
    tags: { type: 'keyword' },
    created_at: { type: 'date' },
  },
};
const images: IndexSpec = { name: 'images', mapping: smallMapping };

let fake: FakeOpenSearch;
const engines: OpenSearchEngine[] = [];

function makeEngine(options: Partial<OpenSearchEngineOptions> = {}): OpenSearchEngine {
  const engine = new OpenSearchEngine({
    node: fake.url,
    indexPrefix: 'test_',
    retireDelayMs: 0,
    retry: { initialDelayMs: 5 },
    ...options,
  });
  engines.push(engine);
  return engine;
}

function docs(...ids: number[]) {
  return ids.map((id) => ({ id, width: id * 10, tags: [`tag${id}`], created_at: '2024-01-01T00:00:00Z' }));
}

/** The search bodies sent, each checked against the client's schema (body and query). */
function searchBodies(): Record<string, unknown>[] {
  return fake.requestsTo(/\/_search$/).map((r) => {
    assertValidSearchBody(r.body);
    assertValidQuery((r.body as { query: unknown }).query);
    return r.body as Record<string, unknown>;
  });
}

function summary(requests: RecordedRequest[]): string[] {
  return requests.map((r) => `${r.method} ${r.path}`);
}

beforeEach(async () => {
  fake = await FakeOpenSearch.start();
});

afterEach(async () => {
  for (const engine of engines.splice(0)) await engine.close();
  await fake.stop();
});

describe('ensureIndex', () => {
  it('creates <prefix><name>_v1 with settings, mapping and the alias in one request', async () => {
    const engine = makeEngine();
    await engine.ensureIndex({ name: 'images', mapping: imagesMapping });

    expect(summary(fake.requests)).toEqual(['HEAD /_alias/test_images', 'PUT /test_images_v1']);
    expect(fake.requests[1]!.body).toEqual({
      settings: {
        index: {
          number_of_shards: 1,
          number_of_replicas: 0,
          refresh_interval: '1s',
          max_result_window: 10_000_000,
          max_terms_count: 262_144,
        },
      },
      mappings: imagesMapping,
      aliases: { test_images: {} },
    });
    expect([...fake.aliases.get('test_images')!]).toEqual(['test_images_v1']);
  });

  it('does nothing when the alias exists', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    fake.clearRequests();
    await engine.ensureIndex(images);
    expect(summary(fake.requests)).toEqual(['HEAD /_alias/test_images']);
  });

  it('adds the custom analyzers the mapping uses, sub-fields included (tag_snowball and configured ones)', async () => {
    const engine = makeEngine({
      numberOfShards: 5,
      numberOfReplicas: 1,
      analyzers: { name_folding: { tokenizer: 'keyword', filter: ['lowercase', 'asciifolding'] } },
    });
    const mapping = {
      dynamic: false,
      properties: {
        id: { type: 'integer' },
        description: { type: 'text', analyzer: 'snowball' },
        analyzed_name: {
          type: 'text',
          analyzer: 'standard',
          fields: { nlp: { type: 'text', analyzer: 'tag_snowball' }, folded: { type: 'text', analyzer: 'name_folding' } },
        },
      },
    } as IndexMapping;
    await engine.ensureIndex({ name: 'tags', mapping });
    const body = fake.requestsTo('/test_tags_v1', 'PUT')[0]!.body as { settings: { index: Record<string, unknown> } };
    expect(body.settings.index).toEqual({
      number_of_shards: 5,
      number_of_replicas: 1,
      refresh_interval: '1s',
      max_result_window: 10_000_000,
      max_terms_count: 262_144,
      analysis: {
        analyzer: {
          tag_snowball: { tokenizer: 'letter', filter: ['asciifolding', 'snowball'] },
          name_folding: { tokenizer: 'keyword', filter: ['lowercase', 'asciifolding'] },
        },
      },
    });
    // built-in analyzers only: no analysis section
    await engine.ensureIndex({ name: 'tags2', mapping: imagesMapping });
    const plain = fake.requestsTo('/test_tags2_v1', 'PUT')[0]!.body as { settings: { index: Record<string, unknown> } };
    expect(plain.settings.index).not.toHaveProperty('analysis');
  });

  it('adopts an existing _v1 that has no alias (a start that stopped half-way, or a concurrent one)', async () => {
    fake.addIndex('test_images_v1');
    const engine = makeEngine();
    await engine.ensureIndex(images);
    expect(summary(fake.requests)).toEqual([
      'HEAD /_alias/test_images',
      'PUT /test_images_v1',
      'HEAD /_alias/test_images',
      'POST /_aliases',
    ]);
    expect(fake.requests[3]!.body).toEqual({ actions: [{ add: { index: 'test_images_v1', alias: 'test_images' } }] });
  });

  it('works without a prefix', async () => {
    const engine = new OpenSearchEngine({ node: fake.url });
    engines.push(engine);
    await engine.ensureIndex(images);
    expect(summary(fake.requests)).toEqual(['HEAD /_alias/images', 'PUT /images_v1']);
  });
});

describe('createVersion and switchAlias', () => {
  it('creates the next version for a fast bulk load and returns its unprefixed name', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    fake.addIndex('test_images_v3');
    fake.addIndex('test_images_vintage'); // not a version
    fake.addIndex('test_imagesx_v9'); // another index's version
    fake.clearRequests();

    expect(await engine.createVersion(images)).toBe('images_v4');
    const [cat, create] = fake.requests;
    expect(`${cat!.method} ${cat!.path}`).toBe('GET /_cat/indices/test_images_v*');
    expect(cat!.query).toMatchObject({ format: 'json', h: 'index', expand_wildcards: 'all' });
    expect(`${create!.method} ${create!.path}`).toBe('PUT /test_images_v4');
    expect(create!.body).toEqual({
      settings: {
        index: {
          number_of_shards: 1,
          number_of_replicas: 0,
          refresh_interval: '-1',
          max_result_window: 10_000_000,
          max_terms_count: 262_144,
        },
      },
      mappings: smallMapping,
    });
    expect(fake.aliases.get('test_images')!.has('test_images_v4')).toBe(false);
  });

  it('takes the next number when a concurrent reindex created it first', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    let raced = false;
    fake.intercept((r) => {
      if (r.method === 'PUT' && r.path === '/test_images_v2' && !raced) {
        raced = true;
        fake.addIndex('test_images_v2');
        return {
          status: 400,
          body: {
            error: { type: 'resource_already_exists_exception', reason: 'index [test_images_v2/x] already exists' },
            status: 400,
          },
        };
      }
      return undefined;
    });
    expect(await engine.createVersion(images)).toBe('images_v3');
  });

  it('also deletes older versions no alias points at (builds that failed before their switch)', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    const abandoned = await engine.createVersion(images);
    const version = await engine.createVersion(images);
    expect([abandoned, version]).toEqual(['images_v2', 'images_v3']);
    const later = await engine.createVersion(images);
    await engine.switchAlias('images', version);
    expect([...fake.indices.keys()].sort()).toEqual(['test_images_v3', `test_${later}`]);
  });

  it('restores settings, refreshes, swaps the alias atomically, then deletes the old version', async () => {
    const engine = makeEngine({ numberOfReplicas: 2, refreshInterval: '2s' });
    await engine.ensureIndex(images);
    await engine.write('images', docs(1, 2));
    const version = await engine.createVersion(images);
    await engine.write(version, docs(3, 4, 5));
    fake.clearRequests();

    await engine.switchAlias('images', version);
    expect(summary(fake.requests)).toEqual([
      'PUT /test_images_v2/_settings',
      'GET /test_images_v2/_refresh',
      'GET /_alias/test_images',
      'POST /_aliases',
      'GET /_cat/indices/test_images_v*',
      'DELETE /test_images_v1',
    ]);
    expect(fake.requests[0]!.body).toEqual({ index: { refresh_interval: '2s', number_of_replicas: 2 } });
    expect(fake.requests[3]!.body).toEqual({
      actions: [
        { remove: { index: 'test_images_v1', alias: 'test_images' } },
        { add: { index: 'test_images_v2', alias: 'test_images' } },
      ],
    });
    expect([...fake.indices.keys()]).toEqual(['test_images_v2']);
    expect(fake.indices.get('test_images_v2')!.settings).toMatchObject({
      'index.refresh_interval': '2s',
      'index.number_of_replicas': '2',
    });
    expect(await engine.count('images')).toBe(3);
    expect((await engine.search('images', { query: { match_all: {} }, sort: [{ id: 'asc' }] })).ids).toEqual([3, 4, 5]);
  });

  it('points a missing alias at the version without removing anything', async () => {
    const engine = makeEngine();
    const version = await engine.createVersion(images);
    expect(version).toBe('images_v1');
    fake.clearRequests();
    await engine.switchAlias('images', version);
    expect(fake.requestsTo('/_aliases')[0]!.body).toEqual({
      actions: [{ add: { index: 'test_images_v1', alias: 'test_images' } }],
    });
    expect(fake.requests.some((r) => r.method === 'DELETE')).toBe(false);
  });

  it('waits retireDelayMs before deleting the old version', async () => {
    const engine = makeEngine({ retireDelayMs: 60 });
    await engine.ensureIndex(images);
    const version = await engine.createVersion(images);
    fake.clearRequests();
    await engine.switchAlias('images', version);
    const swap = fake.requestsTo('/_aliases')[0]!;
    const del = fake.requestsTo('/test_images_v1', 'DELETE')[0]!;
    expect(del.at - swap.at).toBeGreaterThanOrEqual(55);
  });
});

describe('write and remove', () => {
  it('sends index actions as NDJSON ending with a newline, through the alias with require_alias', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    fake.clearRequests();
    await engine.write('images', docs(1, 2));

    const [bulk] = fake.requests;
    expect(`${bulk!.method} ${bulk!.path}`).toBe('PUT /test_images/_bulk');
    expect(bulk!.query).toEqual({ require_alias: 'true' });
    expect(bulk!.raw).toBe(
      '{"index":{"_id":"1"}}\n' +
        '{"id":1,"width":10,"tags":["tag1"],"created_at":"2024-01-01T00:00:00Z"}\n' +
        '{"index":{"_id":"2"}}\n' +
        '{"id":2,"width":20,"tags":["tag2"],"created_at":"2024-01-01T00:00:00Z"}\n',
    );
    expect(fake.indices.get('test_images_v1')!.docs.size).toBe(2);
  });

  it('waits for the refresh through the alias when asked, never on a version being loaded', async () => {
    const engine = makeEngine({ waitForRefresh: true });
    await engine.ensureIndex(images);
    const version = await engine.createVersion(images);
    fake.clearRequests();
    await engine.write('images', docs(1));
    await engine.remove('images', [1]);
    await engine.write(version, docs(2));
    expect(fake.requests.map((r) => [r.path, r.query])).toEqual([
      ['/test_images/_bulk', { require_alias: 'true', refresh: 'wait_for' }],
      ['/test_images/_bulk', { require_alias: 'true', refresh: 'wait_for' }],
      ['/test_images_v2/_bulk', { require_alias: 'false' }],
    ]);
  });

  it('splits large writes by document count and by bytes', async () => {
    const engine = makeEngine({ bulkMaxDocs: 2 });
    await engine.ensureIndex(images);
    fake.clearRequests();
    await engine.write('images', docs(1, 2, 3, 4, 5));
    expect(fake.requests.map((r) => (r.body as unknown[]).length / 2)).toEqual([2, 2, 1]);

    const bytes = makeEngine({ bulkMaxBytes: 200 });
    fake.clearRequests();
    await bytes.write('images', docs(1, 2, 3, 4, 5));
    const sizes = fake.requests.map((r) => Buffer.byteLength(r.raw));
    expect(sizes.length).toBeGreaterThan(1);
    for (const s of sizes) expect(s).toBeLessThanOrEqual(200);
    expect(fake.requests.every((r) => r.raw.endsWith('\n'))).toBe(true);
    expect(fake.indices.get('test_images_v1')!.docs.size).toBe(5);
  });

  it('retries only the items rejected with 429, with exponential backoff', async () => {
    const engine = makeEngine({ retry: { attempts: 5, initialDelayMs: 30, maxDelayMs: 1_000 } });
    await engine.ensureIndex(images);
    fake.failBulkItem(2, 429, 'es_rejected_execution_exception', 'rejected execution of coordinating operation', 2);
    fake.clearRequests();
    await engine.write('images', docs(1, 2, 3));

    const bulks = fake.requestsTo(/_bulk$/);
    expect(bulks.map((r) => r.raw.split('\n')[0])).toEqual([
      '{"index":{"_id":"1"}}',
      '{"index":{"_id":"2"}}',
      '{"index":{"_id":"2"}}',
    ]);
    expect(bulks.map((r) => (r.body as unknown[]).length)).toEqual([6, 2, 2]);
    // 30 ms, then 60 ms (timers may fire a millisecond early)
    expect(bulks[1]!.at - bulks[0]!.at).toBeGreaterThanOrEqual(28);
    expect(bulks[2]!.at - bulks[1]!.at).toBeGreaterThanOrEqual(58);
    expect([...fake.indices.get('test_images_v1')!.docs.keys()].sort()).toEqual(['1', '2', '3']);
  });

  it('retries a whole bulk request rejected with 429', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    let rejected = 0;
    fake.intercept((r) => {
      if (!r.path.endsWith('/_bulk') || rejected++ > 0) return undefined;
      return {
        status: 429,
        body: { error: { type: 'es_rejected_execution_exception', reason: 'queue full' }, status: 429 },
      };
    });
    await engine.write('images', docs(1));
    expect(fake.requestsTo(/_bulk$/)).toHaveLength(2);
    expect(fake.indices.get('test_images_v1')!.docs.size).toBe(1);
  });

  it('reports the permanent failures with id, status, type and reason, after writing the rest', async () => {
    const engine = makeEngine({ retry: { attempts: 3, initialDelayMs: 1 }, bulkMaxDocs: 2 });
    await engine.ensureIndex(images);
    fake.failBulkItem(4, 429, 'es_rejected_execution_exception', 'queue full');
    const bad = { ...docs(3)[0]!, width: 'wide' };
    fake.clearRequests();

    const error = await engine.write('images', [...docs(1, 2), bad, ...docs(4, 5)]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BulkWriteError);
    const e = error as BulkWriteError;
    expect(e.failures).toEqual([
      {
        id: '3',
        status: 400,
        type: 'mapper_parsing_exception',
        reason: "failed to parse field [width] of type [integer] in document with id '3'. Preview of field's value: 'wide'",
      },
      {
        id: '4',
        status: 429,
        type: 'es_rejected_execution_exception',
        reason: 'queue full (still rejected after 3 attempts)',
      },
    ]);
    expect(e.message).toBe(
      'OpenSearch bulk write to [test_images] failed for 2 of 5 documents: ' +
        "id 3: 400 mapper_parsing_exception: failed to parse field [width] of type [integer] in document with id '3'. " +
        "Preview of field's value: 'wide'; " +
        'id 4: 429 es_rejected_execution_exception: queue full (still rejected after 3 attempts)',
    );
    // chunk [1,2] once, chunk [3,4] then [4] twice more, chunk [5] once: the 400 is never retried
    expect(fake.requestsTo(/_bulk$/).map((r) => r.raw.match(/"_id":"\d+"/g)!.join(' '))).toEqual([
      '"_id":"1" "_id":"2"',
      '"_id":"3" "_id":"4"',
      '"_id":"4"',
      '"_id":"4"',
      '"_id":"5"',
    ]);
    expect([...fake.indices.get('test_images_v1')!.docs.keys()].sort()).toEqual(['1', '2', '5']);
  });

  it('refuses to write through an alias that does not exist (no auto-created index)', async () => {
    const engine = makeEngine();
    await expect(engine.write('images', docs(1))).rejects.toThrow(
      'OpenSearch bulk write to [test_images] failed for 1 of 1 documents: id 1: 404 index_not_found_exception: ' +
        'no such index [test_images] and [require_alias] request flag is [true] and [test_images] is not an alias',
    );
    expect(fake.indices.size).toBe(0);
  });

  it('rejects documents without an integer id before sending anything', async () => {
    const engine = makeEngine();
    await expect(engine.write('images', [{ id: 'x' } as unknown as { id: number }])).rejects.toThrow(
      'index document without an integer id',
    );
    expect(fake.requests).toHaveLength(0);
  });

  it('removes with delete actions and ignores ids that are not there', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    await engine.write('images', docs(1, 2, 3));
    fake.clearRequests();
    await engine.remove('images', [2, 99]);
    expect(fake.requests[0]!.raw).toBe('{"delete":{"_id":"2"}}\n{"delete":{"_id":"99"}}\n');
    expect(await engine.count('images')).toBe(2);
    await engine.remove('images', []);
    expect(fake.requestsTo(/_bulk$/)).toHaveLength(1);
  });

  it('does not ignore a delete failing for another reason than a missing document', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    fake.failBulkItem(7, 500, 'shard_not_available_exception', 'shard closed');
    await expect(engine.remove('images', [7])).rejects.toThrow(
      'OpenSearch bulk remove to [test_images] failed for 1 of 1 documents: id 7: 500 shard_not_available_exception: shard closed',
    );
  });
});

describe('search', () => {
  async function seeded(options: Partial<OpenSearchEngineOptions> = {}, n = 5): Promise<OpenSearchEngine> {
    const engine = makeEngine(options);
    await engine.ensureIndex(images);
    await engine.write('images', docs(...Array.from({ length: n }, (_, i) => i + 1)));
    fake.clearRequests();
    return engine;
  }

  it('sends query, sort, from, size, _source: false and track_total_hits: true; returns numeric ids', async () => {
    const engine = await seeded();
    const request: SearchRequest = {
      query: { bool: { must: [{ ids: { values: ['2', '3', '5'] } }] } },
      sort: [{ id: 'desc' }],
      from: 1,
      size: 2,
    };
    expect(await engine.search('images', request)).toEqual({ ids: [3, 2], total: 3 });
    const [req] = fake.requests;
    expect(`${req!.method} ${req!.path}`).toBe('POST /test_images/_search');
    expect(req!.query).toEqual({ allow_partial_search_results: 'false' });
    expect(searchBodies()).toEqual([
      {
        query: { bool: { must: [{ ids: { values: ['2', '3', '5'] } }] } },
        sort: [{ id: 'desc' }],
        from: 1,
        size: 2,
        _source: false,
        track_total_hits: true,
      },
    ]);
  });

  it('defaults to from 0 and size 10 and sends no sort when none is given', async () => {
    const engine = await seeded({}, 12);
    const result = await engine.search('images', { query: { match_all: {} } });
    expect(result.total).toBe(12);
    expect(result.ids).toHaveLength(10);
    expect(searchBodies()).toEqual([{ query: { match_all: {} }, from: 0, size: 10, _source: false, track_total_hits: true }]);
  });

  it('searches a version by its unprefixed name', async () => {
    const engine = await seeded();
    const version = await engine.createVersion(images);
    await engine.write(version, docs(9));
    expect(await engine.search(version, { query: { match_all: {} } })).toEqual({ ids: [9], total: 1 });
    expect(fake.requestsTo(/_search$/)[0]!.path).toBe('/test_images_v2/_search');
  });

  it('sends the body the image request builder makes (random order, filter exclusions) unchanged', async () => {
    const engine = await seeded();
    const { query } = explainQuery('images', 'safe, (solo || duo), score.gte:10, created_at.lte:3 days ago, -blue*');
    const request = buildImageSearch({
      query,
      sort: parseImageSort('random:42', 'desc'),
      filters: [{ tagIds: [40482, 26707], complex: { match_none: {} } }],
      userId: 7,
      page: 2,
      perPage: 25,
    });
    fake.intercept((r) =>
      r.path.endsWith('/_search')
        ? {
            status: 200,
            body: {
              hits: {
                total: { value: 31, relation: 'eq' },
                hits: [
                  { _id: '17', _score: 0.9, sort: [0.9, 17] },
                  { _id: '4', _score: 0.2, sort: [0.2, 4] },
                ],
              },
            },
          }
        : undefined,
    );
    expect(await engine.search('images', request)).toEqual({ ids: [17, 4], total: 31 });
    const [body] = searchBodies();
    expect(body).toEqual({ ...request, _source: false, track_total_hits: true });
    expect(body).toMatchObject({ from: 25, size: 25, sort: [{ _score: 'desc' }, { id: 'desc' }] });
  });

  it('rejects a negative or fractional page window before sending', async () => {
    const engine = await seeded();
    await expect(engine.search('images', { query: { match_all: {} }, from: -1 })).rejects.toThrow(
      '[from] must be a non-negative integer',
    );
    await expect(engine.search('images', { query: { match_all: {} }, size: 1.5 })).rejects.toThrow(
      '[size] must be a non-negative integer',
    );
    expect(fake.requests).toHaveLength(0);
  });

  describe('past the result window', () => {
    const all = Array.from({ length: 50 }, (_, i) => i + 1);

    it('reads the window once it matters, then jumps, walks with search_after and returns the page', async () => {
      const engine = await seeded({ maxResultWindow: 20, deepPagingStep: 7 }, 50);
      const sort = [{ id: 'asc' as const }];
      const result = await engine.search('images', { query: { match_all: {} }, sort, from: 30, size: 5 });
      expect(result).toEqual({ ids: [31, 32, 33, 34, 35], total: 50 });

      const settings = fake.requests[0]!;
      expect(`${settings.method} ${settings.path}`).toBe('GET /test_images/_settings/index.max_result_window');
      expect(settings.query).toMatchObject({ include_defaults: 'true', flat_settings: 'true' });
      const base = { query: { match_all: {} }, sort, _source: false };
      expect(searchBodies()).toEqual([
        { ...base, from: 19, size: 1, track_total_hits: true },
        { ...base, size: 7, search_after: [20], track_total_hits: false },
        { ...base, size: 3, search_after: [27], track_total_hits: false },
        { ...base, size: 5, search_after: [30], track_total_hits: false },
      ]);

      // the window is cached: the next deep page reads no settings
      fake.clearRequests();
      expect(await engine.search('images', { query: { match_all: {} }, sort, from: 20, size: 3 })).toEqual({
        ids: [21, 22, 23],
        total: 50,
      });
      expect(summary(fake.requests)).toEqual(['POST /test_images/_search', 'POST /test_images/_search']);
    });

    it('gives the same pages as from/size would, in both directions and straddling the window', async () => {
      const engine = await seeded({ maxResultWindow: 20, deepPagingStep: 6 }, 50);
      for (const dir of ['asc', 'desc'] as const) {
        const ordered = dir === 'asc' ? all : [...all].reverse();
        for (const [from, size] of [
          [0, 20],
          [15, 10],
          [19, 2],
          [20, 1],
          [33, 20],
          [45, 10],
        ] as const) {
          const result = await engine.search('images', {
            query: { match_all: {} },
            sort: [{ width: dir }, { id: dir }],
            from,
            size,
          });
          expect(result, `${dir} from ${from} size ${size}`).toEqual({
            ids: ordered.slice(from, from + size),
            total: 50,
          });
        }
      }
      searchBodies();
    });

    it('returns an empty page with the total when the page starts past the last hit', async () => {
      const engine = await seeded({ maxResultWindow: 20 }, 50);
      expect(await engine.search('images', { query: { match_all: {} }, sort: [{ id: 'asc' }], from: 60, size: 5 })).toEqual({
        ids: [],
        total: 50,
      });
      expect(fake.requestsTo(/_search$/)).toHaveLength(1);
    });

    it('refuses a deep page whose sort does not end with the id tie-breaker', async () => {
      const engine = await seeded({ maxResultWindow: 20 }, 50);
      await expect(
        engine.search('images', { query: { match_all: {} }, sort: [{ width: 'desc' }], from: 30, size: 5 }),
      ).rejects.toThrow(
        'page past the result window of [test_images] (20, asked from 30 size 5) needs a sort ending with the id tie-breaker',
      );
      await expect(engine.search('images', { query: { match_all: {} }, from: 30, size: 5 })).rejects.toThrow(
        'needs a sort ending with the id tie-breaker',
      );
      expect(fake.requestsTo(/_search$/)).toHaveLength(0);
    });

    it('reads no settings while from + size stays within 10,000 and the configured window', async () => {
      const engine = await seeded({}, 3);
      await engine.search('images', { query: { match_all: {} }, sort: [{ id: 'asc' }], from: 9_990, size: 10 });
      expect(summary(fake.requests)).toEqual(['POST /test_images/_search']);
    });
  });
});

describe('get, count, flush, close', () => {
  it('get uses mget with _source and returns the stored documents by id; missing ids are absent', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    await engine.write('images', docs(1, 2));
    fake.clearRequests();
    const found = await engine.get('images', [1, 2, 99]);
    expect([...found.keys()]).toEqual([1, 2]);
    expect(found.get(2)).toEqual(docs(2)[0]);
    const [req] = fake.requests;
    expect(`${req!.method} ${req!.path}`).toBe('POST /test_images/_mget');
    expect(req!.query).toEqual({ _source: 'true' });
    expect(req!.body).toEqual({ ids: ['1', '2', '99'] });
  });

  it('count reads _count', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    await engine.write('images', docs(1, 2, 3));
    fake.clearRequests();
    expect(await engine.count('images')).toBe(3);
    expect(summary(fake.requests)).toEqual(['GET /test_images/_count']);
  });

  it('flush refreshes the indices written to since the last flush, and nothing otherwise', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    await engine.ensureIndex({ name: 'tags', mapping: smallMapping });
    await engine.write('images', docs(1));
    await engine.remove('tags', [1]);
    fake.clearRequests();
    await engine.flush();
    expect(summary(fake.requests)).toEqual(['GET /test_images,test_tags/_refresh']);
    expect(fake.requests[0]!.query).toEqual({ ignore_unavailable: 'true' });
    await engine.flush();
    expect(fake.requests).toHaveLength(1);
  });

  it('close closes the client it built, not one it was given', async () => {
    const own = makeEngine();
    const spy = vi.spyOn(own.client, 'close');
    await own.close();
    await own.close(); // idempotent
    expect(spy).toHaveBeenCalled();
    const calls = spy.mock.calls.length;
    await own.close();
    expect(spy.mock.calls.length).toBe(calls);

    const client = new Client({ node: fake.url });
    const given = makeEngine({ client });
    const spy2 = vi.spyOn(client, 'close');
    await given.close();
    expect(spy2).not.toHaveBeenCalled();
    await client.close();
  });
});

describe('errors', () => {
  it('a 500 becomes an error naming the operation, status, type and reason, without the whole body', async () => {
    const engine = makeEngine();
    fake.intercept(() => ({
      status: 500,
      body: {
        error: {
          root_cause: [{ type: 'null_pointer_exception', reason: 'boom' }],
          type: 'null_pointer_exception',
          reason: 'boom',
          stack_trace: 'java.lang.NullPointerException: at org.opensearch.secret.Internals(Internals.java:42)',
        },
        status: 500,
      },
    }));
    const error = await engine.count('images').then(
      () => undefined,
      (e: unknown) => e as OpenSearchError,
    );
    expect(error).toBeInstanceOf(OpenSearchError);
    expect(error!.message).toBe('OpenSearch count [test_images] failed: HTTP 500 null_pointer_exception: boom');
    expect(error).toMatchObject({ status: 500, type: 'null_pointer_exception', reason: 'boom' });
    expect(error!.message).not.toContain('stack_trace');
    expect(error!.message).not.toContain('Internals');
  });

  it('a failed search names the root cause under search_phase_execution_exception', async () => {
    const engine = makeEngine();
    fake.addIndex('test_images_v1', { max_result_window: 5 });
    fake.addAlias('test_images', 'test_images_v1');
    // the engine assumes a window of at least 10,000 here, so the node refuses the page
    await expect(engine.search('images', { query: { match_all: {} }, from: 4, size: 2 })).rejects.toThrow(
      /^OpenSearch search \[test_images\] failed: HTTP 500 search_phase_execution_exception: all shards failed \(caused by illegal_argument_exception: Result window is too large/,
    );
  });

  it('a missing index is a 404 index_not_found_exception', async () => {
    const engine = makeEngine();
    await expect(engine.search('images', { query: { match_all: {} } })).rejects.toThrow(
      'OpenSearch search [test_images] failed: HTTP 404 index_not_found_exception: no such index [test_images]',
    );
  });

  it('a non-JSON error body is clipped, not dumped', async () => {
    const engine = makeEngine();
    fake.intercept(() => ({ status: 400, body: `<html>${'x'.repeat(5_000)}</html>` }));
    const error = await engine.count('images').then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error!.message).toMatch(/^OpenSearch count \[test_images\] failed: HTTP 400 <html>x+…$/);
    expect(error!.message.length).toBeLessThan(400);
  });

  it('connection refused names the node', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer();
      probe.listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const node = `http://127.0.0.1:${port}`;
    const engine = new OpenSearchEngine({ node, indexPrefix: 'test_' });
    engines.push(engine);
    const error = await engine.ensureIndex(images).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error).toBeInstanceOf(OpenSearchError);
    expect(error!.message).toMatch(
      new RegExp(`^OpenSearch alias lookup \\[test_images\\] failed: cannot connect to ${node.replace(/\./g, '\\.')} \\(.*ECONNREFUSED`),
    );
  });
});
