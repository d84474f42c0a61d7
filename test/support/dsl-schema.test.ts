import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { assertValidQuery, assertValidSearchBody, validateQuery, validateSearchBody } from './dsl-schema.js';
import { QUERY_SCHEMA_PATH } from './generate-dsl-schema.js';

// Generating the schemas (on a fresh checkout without `pretest`) and compiling them takes seconds.
beforeAll(() => {
  validateQuery({ match_all: {} });
  validateSearchBody({});
}, 180_000);

describe('validateQuery: the 15 reference cases', () => {
  const valid: Record<string, unknown> = {
    'bool with term and case-insensitive wildcard': {
      bool: {
        filter: [{ term: { tags: { value: 'safe' } } }, { wildcard: { tags: { value: 'blue_*', case_insensitive: true } } }],
        must_not: [{ term: { tags: 'rating:explicit' } }],
      },
    },
    'date-math range': { range: { created_at: { gte: 'now-3d/d' } } },
    'numeric range': { range: { score: { gte: 10, lt: 100 } } },
    exists: { exists: { field: 'description' } },
    terms: { terms: { tag_ids: [1, 2, 3] } },
    'function_score random_score, numeric seed': {
      function_score: { functions: [{ random_score: { seed: 42, field: 'id' } }], boost_mode: 'replace' },
    },
    'function_score random_score, string seed': {
      function_score: { query: { match_all: {} }, functions: [{ random_score: { seed: 'abc', field: 'id' } }], boost_mode: 'replace' },
    },
    'nested term': { nested: { path: 'galleries', query: { term: { 'galleries.id': 5 } } } },
  };
  const invalid: Record<string, unknown> = {
    'unknown kind': { trem: { tags: 'x' } },
    'two kinds in one container': { term: { tags: 'a' }, exists: { field: 'tags' } },
    'wrong bool clause': { bool: { mustnot: [] } },
    'wrong wildcard option': { wildcard: { tags: { value: 'a*', caseInsensitive: true } } },
    'wrong range operator': { range: { score: { gtee: 5 } } },
    'two fields in term': { term: { tags: 'a', id: 1 } },
    'array in term': { term: { tags: ['a', 'b'] } },
  };

  for (const [name, query] of Object.entries(valid)) {
    it(`accepts: ${name}`, () => {
      expect(validateQuery(query)).toEqual([]);
      expect(() => assertValidQuery(query)).not.toThrow();
    });
  }
  for (const [name, query] of Object.entries(invalid)) {
    it(`rejects: ${name}`, () => {
      expect(validateQuery(query).length).toBeGreaterThan(0);
      expect(() => assertValidQuery(query)).toThrow(/Invalid OpenSearch query/);
    });
  }

  it('rejects an empty container', () => {
    expect(validateQuery({}).length).toBeGreaterThan(0);
  });

  it('puts the ajv errors and the JSON into the thrown message', () => {
    const query = { term: { tags: 'a', id: 1 } };
    expect(() => assertValidQuery(query)).toThrow(/\/term must NOT have more than 1 properties[\s\S]*"tags": "a"/);
  });
});

describe('the generated schema', () => {
  it('has exactly-one-key patches on QueryContainer and its field maps', () => {
    const schema = JSON.parse(readFileSync(QUERY_SCHEMA_PATH, 'utf8')) as {
      definitions: Record<string, { minProperties?: number; maxProperties?: number; properties: Record<string, { maxProperties?: number }> }>;
    };
    const qc = schema.definitions.QueryContainer;
    expect(qc?.minProperties).toBe(1);
    expect(qc?.maxProperties).toBe(1);
    for (const kind of ['term', 'wildcard', 'range', 'prefix', 'match', 'fuzzy', 'match_phrase']) {
      expect(qc?.properties[kind]?.maxProperties, kind).toBe(1);
    }
  });
});

describe('validateSearchBody', () => {
  const body = {
    query: {
      bool: {
        must: { match_all: {} },
        must_not: [{ term: { approved: false } }, { term: { hidden_from_users: true } }],
      },
    },
    sort: [{ first_seen_at: 'desc' }, { id: { order: 'desc' } }],
    from: 0,
    size: 15,
    _source: false,
    track_total_hits: true,
  };

  it('accepts a Philomena-shaped image search body', () => {
    expect(validateSearchBody(body)).toEqual([]);
    expect(() => assertValidSearchBody(body)).not.toThrow();
  });

  it('accepts search_after paging and a random sort', () => {
    expect(
      validateSearchBody({
        query: {
          function_score: { query: { match_all: {} }, functions: [{ random_score: { seed: 7, field: 'id' } }], boost_mode: 'replace' },
        },
        sort: [{ _score: 'desc' }, { id: 'desc' }],
        search_after: [0.5, 1001],
        size: 50,
        track_total_hits: true,
      }),
    ).toEqual([]);
  });

  it('rejects the single-function random_score shorthand, which the client types lack', () => {
    // OpenSearch itself accepts `function_score.random_score`, but the typed DSL (and so this
    // schema) only knows `functions: [{ random_score }]`: compile random sorts to that form.
    expect(
      validateSearchBody({ query: { function_score: { query: { match_all: {} }, random_score: { seed: 7, field: 'id' }, boost_mode: 'replace' } } }),
    ).toEqual(['/query/function_score must NOT have additional properties {"additionalProperty":"random_score"}']);
  });

  it('rejects a misspelled top-level key', () => {
    expect(validateSearchBody({ ...body, qurey: {} }).length).toBeGreaterThan(0);
  });

  it('rejects a bad sort order', () => {
    expect(validateSearchBody({ ...body, sort: [{ id: { order: 'descending' } }] }).length).toBeGreaterThan(0);
  });

  it('rejects wrong types for from, size and track_total_hits', () => {
    expect(validateSearchBody({ ...body, size: '15' }).length).toBeGreaterThan(0);
    expect(validateSearchBody({ ...body, from: 'zero' }).length).toBeGreaterThan(0);
    expect(validateSearchBody({ ...body, track_total_hits: 'yes' }).length).toBeGreaterThan(0);
  });

  it('validates the query inside the body', () => {
    expect(validateSearchBody({ ...body, query: { term: { a: 1, b: 2 } } }).length).toBeGreaterThan(0);
    expect(() => assertValidSearchBody({ query: { trem: {} } })).toThrow(/Invalid OpenSearch search body/);
  });
});
