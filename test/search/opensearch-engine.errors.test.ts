/**
 * The OpenSearch engine's error messages against a fake node (see opensearch-engine.test.ts):
 * failed calls, unreachable and slow nodes.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { OpenSearchEngine, OpenSearchError } from '../../src/search/opensearch/index.js';
import { fake, engines, makeEngine, images, withFakeNode } from './opensearch-engine-fake.js';

withFakeNode();

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
    expect(error).toMatchObject({ status: 500, type: 'null_pointer_exception', reason: 'boom', unavailable: false });
    expect(error!.message).not.toContain('stack_trace');
    expect(error!.message).not.toContain('Internals');
  });

  it('a 503 (a shard or node missing) and a 429 (a full queue) are marked unavailable: the cluster may serve soon', async () => {
    const engine = makeEngine({ maxRetries: 0 });
    let status = 0;
    fake.intercept(() => ({ status, body: { error: { type: 'cluster_block_exception', reason: 'no' }, status } }));
    for (status of [503, 429]) {
      const error = await engine.count('images').then(
        () => undefined,
        (e: unknown) => e as OpenSearchError,
      );
      expect(error).toMatchObject({ status, unavailable: true });
    }
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
    expect((error as OpenSearchError).unavailable).toBe(true);
    expect(error!.message).toMatch(
      new RegExp(`^OpenSearch alias lookup \\[test_images\\] failed: cannot connect to ${node.replace(/\./g, '\\.')} \\(.*ECONNREFUSED`),
    );
  });
});
