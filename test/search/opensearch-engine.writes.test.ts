/**
 * The OpenSearch engine's writes against a fake node (see opensearch-engine.test.ts): bulk
 * NDJSON, chunking, retries of rejected items and the failures reported.
 */
import { describe, expect, it } from 'vitest';
import { BulkWriteError } from '../../src/search/opensearch/index.js';
import { fake, makeEngine, docs, images, withFakeNode } from './opensearch-engine-fake.js';

withFakeNode();

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
    // one request at a time, so that the order of the requests below is fixed
    const engine = makeEngine({ retry: { attempts: 3, initialDelayMs: 1 }, bulkMaxDocs: 2, bulkConcurrency: 1 });
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
