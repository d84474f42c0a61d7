/**
 * The fake node the OpenSearch engine's tests talk to, started afresh before each test, and the
 * engines, documents and recorded requests those tests share.
 */
import { afterEach, beforeEach } from 'vitest';
import type { IndexSpec } from '../../src/search/engine.js';
import type { IndexMapping } from '../../src/search/mapping.js';
import { OpenSearchEngine, type OpenSearchEngineOptions } from '../../src/search/opensearch/index.js';
import { assertValidQuery, assertValidSearchBody } from '../support/dsl-schema.js';
import { FakeOpenSearch, type RecordedRequest } from '../support/fake-opensearch.js';

export const smallMapping: IndexMapping = {
  dynamic: false,
  properties: {
    id: { type: 'integer' },
    width: { type: 'integer' },
    tags: { type: 'keyword' },
    created_at: { type: 'date' },
  },
};
export const images: IndexSpec = { name: 'images', mapping: smallMapping };

export let fake: FakeOpenSearch;
export const engines: OpenSearchEngine[] = [];

export function makeEngine(options: Partial<OpenSearchEngineOptions> = {}): OpenSearchEngine {
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

export function docs(...ids: number[]) {
  return ids.map((id) => ({ id, width: id * 10, tags: [`tag${id}`], created_at: '2024-01-01T00:00:00Z' }));
}

/** The search bodies sent, each checked against the client's schema (body and query). */
export function searchBodies(): Record<string, unknown>[] {
  return fake.requestsTo(/\/_search$/).map((r) => {
    assertValidSearchBody(r.body);
    assertValidQuery((r.body as { query: unknown }).query);
    return r.body as Record<string, unknown>;
  });
}

export function summary(requests: RecordedRequest[]): string[] {
  return requests.map((r) => `${r.method} ${r.path}`);
}

/** Starts a fresh fake node before each test; closes it and every engine made after it. */
export function withFakeNode(): void {
  beforeEach(async () => {
    fake = await FakeOpenSearch.start();
  });

  afterEach(async () => {
    for (const engine of engines.splice(0)) await engine.close();
    await fake.stop();
  });
}
