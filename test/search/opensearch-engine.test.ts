/**
 * The OpenSearch engine against a fake node that records every request: the exact index
 * creation bodies, alias actions, bulk NDJSON, retries and failure reports, search bodies (schema
 * checked) and error messages. Semantics of queries are the embedded engine's tests' business;
 * a real cluster is exercised by opensearch-live.test.ts when OPENSEARCH_URL is set.
 *
 * This file: creating indices, versions and switching aliases. Writes, reads and errors are in
 * opensearch-engine.writes, .reads and .errors.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { imagesMapping } from '../../src/search/indexes/images/mapping.js';
import type { IndexMapping } from '../../src/search/mapping.js';
import { OpenSearchEngine } from '../../src/search/opensearch/index.js';
import { fake, engines, makeEngine, docs, summary, smallMapping, images, withFakeNode } from './opensearch-engine-fake.js';

withFakeNode();

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

  it('leaves an index behind the alias as it is when its replicas are the configured ones', async () => {
    const engine = makeEngine();
    await engine.ensureIndex(images);
    fake.clearRequests();
    await engine.ensureIndex(images);
    expect(summary(fake.requests)).toEqual(['HEAD /_alias/test_images', 'GET /test_images/_settings/index.number_of_replicas,index.auto_expand_replicas']);
  });

  it('gives an index behind the alias the configured replicas when it has others (set by hand, or by an earlier setting)', async () => {
    await makeEngine({ numberOfReplicas: 0 }).ensureIndex(images);
    await makeEngine({ numberOfReplicas: '0-1' }).ensureIndex(images);
    expect(fake.requestsTo('/test_images_v1/_settings', 'PUT')[0]!.body).toEqual({ index: { auto_expand_replicas: '0-1' } });
    fake.clearRequests();
    await makeEngine({ numberOfReplicas: 2 }).ensureIndex(images);
    expect(fake.requestsTo('/test_images_v1/_settings', 'PUT')[0]!.body).toEqual({ index: { auto_expand_replicas: 'false', number_of_replicas: 2 } });
    expect(fake.indices.get('test_images_v1')!.settings).toMatchObject({ 'index.number_of_replicas': '2', 'index.auto_expand_replicas': 'false' });
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
      'POST /test_images_v2/_forcemerge',
      'PUT /test_images_v2/_settings',
      'GET /_cluster/health/test_images_v2',
      'GET /test_images_v2/_refresh',
      'GET /_alias/test_images',
      'POST /_aliases',
      'GET /_cat/indices/test_images_v*',
      'DELETE /test_images_v1',
    ]);
    expect(fake.requests[0]!.query).toMatchObject({ max_num_segments: '1' });
    expect(fake.requests[1]!.body).toEqual({ index: { refresh_interval: '2s', number_of_replicas: 2 } });
    expect(fake.requests[2]!.query).toMatchObject({ wait_for_status: 'green', timeout: '30s' });
    expect(fake.requests[5]!.body).toEqual({
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

  it('gives live indices a replica range (auto_expand_replicas) and a loading version none until its switch', async () => {
    const engine = makeEngine({ numberOfReplicas: '0-1', numberOfShards: 2 });
    await engine.ensureIndex(images);
    expect(fake.requests[1]!.body).toMatchObject({ settings: { index: { number_of_shards: 2, auto_expand_replicas: '0-1' } } });
    expect(fake.requests[1]!.body).not.toHaveProperty('settings.index.number_of_replicas');
    const version = await engine.createVersion(images);
    expect(fake.indices.get(`test_${version}`)!.settings).toMatchObject({ 'index.number_of_replicas': '0', 'index.number_of_shards': '2' });
    fake.clearRequests();
    await engine.switchAlias('images', version);
    expect(fake.requestsTo(/_settings$/, 'PUT')[0]!.body).toEqual({ index: { refresh_interval: '1s', auto_expand_replicas: '0-1' } });
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
