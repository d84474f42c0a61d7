/**
 * The OpenSearch engine's reads against a fake node (see opensearch-engine.test.ts): search
 * bodies (schema checked), pages past the result window, get, count, flush and close.
 */
import { Client } from '@opensearch-project/opensearch';
import { describe, expect, it, vi } from 'vitest';
import { explainQuery } from '../../src/contexts/search/explain.js';
import type { SearchRequest } from '../../src/search/engine.js';
import { OpenSearchEngine, type OpenSearchEngineOptions } from '../../src/search/opensearch/index.js';
import { buildImageSearch, parseImageSort } from '../../src/search/requests/index.js';
import { fake, makeEngine, docs, searchBodies, summary, smallMapping, images, withFakeNode } from './opensearch-engine-fake.js';

withFakeNode();

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
    expect(req!.query).toEqual({ allow_partial_search_results: 'false', request_cache: 'true' });
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
