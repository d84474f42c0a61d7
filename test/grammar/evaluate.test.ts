import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Query, compileEvaluator, evaluate, minimumShouldMatch, type IndexMapping } from '../../grammar/index.js';
import { mapping, image, check, hit, miss, T } from './evaluate-doc.js';

describe('reference evaluator defects are fixed', () => {
  it('AND (a bool with only must) matches', () => {
    hit({ bool: { must: [T('tags', 'safe'), T('tags', 'solo')] } });
  });

  it('NOT (a bool with only must_not, as a single object) matches', () => {
    hit({ bool: { must_not: T('tags', 'nope') } });
    hit({ bool: { must_not: { range: { tag_count: { lt: 200 } } } } });
  });

  it('AND and NOT in a complex filter match', () => {
    hit({
      bool: {
        should: [
          { bool: { must: [T('tags', 'safe'), { bool: { must_not: T('tags', 'explicit') } }] } },
          T('tags', 'never'),
        ],
      },
    });
  });

  it('tags is an array: a term matches any one tag', () => {
    hit(T('tags', 'safe'));
    hit(T('tags', 'rainbow dash'));
    miss(T('tags', 'safe, solo'));
  });

  it('dates compare as instants: 2020-01-01 is on or after 2019-06-15', () => {
    hit({ range: { created_at: { gte: '2019-06-15' } } });
    hit({ range: { created_at: { gte: '2019-06-15T00:00:00Z' } } });
    miss({ range: { created_at: { lt: '2019-06-15' } } });
  });

  it('match_phrase is case-insensitive through analysis', () => {
    hit({ match_phrase: { description: 'rainbow dash' } });
    hit({ match_phrase: { description: 'RAINBOW DASH' } });
  });

  it('? is exactly one character', () => {
    hit({ wildcard: { tags: 'p?ny' } });
    miss({ wildcard: { tags: 'p?ony' } });
    miss({ wildcard: { tags: 'sol?o' } });
  });

  it('nested queries work (gallery_id)', () => {
    hit({ nested: { path: 'galleries', query: T('galleries.id', 3) } });
  });
});

describe('bool', () => {
  it('must and filter require every clause, as arrays or single objects', () => {
    hit({ bool: { must: T('tags', 'safe'), filter: T('tags', 'solo') } });
    hit({ bool: { filter: [T('tags', 'safe'), { range: { score: { gte: 100 } } }] } });
    miss({ bool: { must: [T('tags', 'safe'), T('tags', 'nope')] } });
    miss({ bool: { filter: [T('tags', 'safe')], must: [T('tags', 'nope')] } });
  });

  it('must_not excludes on any clause', () => {
    miss({ bool: { must_not: [T('tags', 'nope'), T('tags', 'safe')] } });
    hit({ bool: { must_not: [T('tags', 'nope'), T('tags', 'nada')] } });
  });

  it('should alone needs at least one match', () => {
    hit({ bool: { should: [T('tags', 'nope'), T('tags', 'safe')] } });
    miss({ bool: { should: [T('tags', 'nope'), T('tags', 'nada')] } });
    hit({ bool: { should: T('tags', 'safe') } });
  });

  it('should is optional next to must or filter', () => {
    hit({ bool: { must: T('tags', 'safe'), should: T('tags', 'nope') } });
    hit({ bool: { filter: T('tags', 'safe'), should: [T('tags', 'nope')] } });
    miss({ bool: { must: T('tags', 'nope'), should: T('tags', 'safe') } });
  });

  it('should alone next to must_not still needs a match', () => {
    miss({ bool: { should: T('tags', 'nope'), must_not: T('tags', 'nada') } });
    hit({ bool: { should: T('tags', 'safe'), must_not: T('tags', 'nada') } });
  });

  it('minimum_should_match counts should clauses', () => {
    const should = [T('tags', 'safe'), T('tags', 'solo'), T('tags', 'nope'), T('tags', 'nada')];
    hit({ bool: { should, minimum_should_match: 2 } });
    miss({ bool: { should, minimum_should_match: 3 } });
    hit({ bool: { should, minimum_should_match: '50%' } });
    miss({ bool: { should, minimum_should_match: '75%' } });
    hit({ bool: { should, minimum_should_match: -2 } });
    miss({ bool: { should, minimum_should_match: -1 } });
    miss({ bool: { should, minimum_should_match: 5 } });
    hit({ bool: { must: T('tags', 'safe'), should: [T('tags', 'nope')], minimum_should_match: 0 } });
    miss({ bool: { must: T('tags', 'safe'), should: [T('tags', 'nope')], minimum_should_match: 1 } });
  });

  it('an empty bool matches everything', () => {
    hit({ bool: {} });
    hit({ bool: { must: [], should: [], must_not: [] } });
  });

  it('rejects unknown clauses', () => {
    expect(() => compileEvaluator({ bool: { mustnot: [] } } as unknown as Query)).toThrow(/mustnot/);
  });
});

describe('minimumShouldMatch', () => {
  it('follows OpenSearch arithmetic', () => {
    expect(minimumShouldMatch(4, 2)).toBe(2);
    expect(minimumShouldMatch(4, '-1')).toBe(3);
    expect(minimumShouldMatch(4, '75%')).toBe(3);
    expect(minimumShouldMatch(3, '75%')).toBe(2);
    expect(minimumShouldMatch(3, '-25%')).toBe(3);
    expect(minimumShouldMatch(4, '-25%')).toBe(3);
    expect(minimumShouldMatch(2, '3<90%')).toBe(2);
    expect(minimumShouldMatch(10, '3<90%')).toBe(9);
    expect(minimumShouldMatch(10, '2<-25% 9<-3')).toBe(7);
    expect(minimumShouldMatch(5, '2<-25% 9<-3')).toBe(4);
    expect(minimumShouldMatch(2, -5)).toBe(0);
  });
});


describe('function_score and constant_score', () => {
  it('function_score evaluates its inner query; no query matches all', () => {
    hit({ function_score: { query: T('tags', 'safe'), boost: 2 } });
    miss({ function_score: { query: T('tags', 'nope') } });
    hit({ function_score: { functions: [{ random_score: { seed: 1, field: 'id' } }], boost_mode: 'replace' } });
  });

  it('constant_score evaluates its filter', () => {
    hit({ constant_score: { filter: T('tags', 'safe'), boost: 1 } });
    miss({ constant_score: { filter: T('tags', 'nope') } });
  });
});

describe('nested', () => {
  it('matches when one nested object matches the whole inner query', () => {
    hit({ nested: { path: 'galleries', query: { bool: { must: [T('galleries.id', 9), { range: { 'galleries.position': { gte: 10 } } }] } } } });
    // id 3 and position 20 belong to different objects
    miss({ nested: { path: 'galleries', query: { bool: { must: [T('galleries.id', 3), { range: { 'galleries.position': { gte: 10 } } }] } } } });
    miss({ nested: { path: 'galleries', query: T('galleries.id', 4) } });
  });

  it('accepts a single nested object and ignores missing ones', () => {
    check({ nested: { path: 'galleries', query: T('galleries.id', 3) } }, { galleries: { id: 3, position: 0 } }, true);
    miss({ nested: { path: 'galleries', query: T('galleries.id', 3) } }, { id: 1 });
  });

  it('inner fields outside the nested path never match', () => {
    miss({ nested: { path: 'galleries', query: T('tags', 'safe') } });
  });

  it('with a mapping, nested fields are invisible outside a nested query', () => {
    check(T('galleries.id', 3), image, false, true);
  });

  it('with a mapping, rejects unmapped or non-nested paths unless ignore_unmapped', () => {
    expect(() => compileEvaluator({ nested: { path: 'nope', query: { match_all: {} } } } as Query, mapping)).toThrow(/nested/);
    expect(() => compileEvaluator({ nested: { path: 'image', query: { match_all: {} } } } as Query, mapping)).toThrow(/not of nested type/);
    expect(evaluate({ nested: { path: 'nope', query: { match_all: {} }, ignore_unmapped: true } } as Query, image, mapping)).toBe(false);
  });

  it('supports nested inside nested', () => {
    const m: IndexMapping = {
      dynamic: false,
      properties: { a: { type: 'nested', properties: { b: { type: 'nested', properties: { c: { type: 'keyword' } } } } } },
    };
    const doc = { a: [{ b: [{ c: 'x' }, { c: 'y' }] }, { b: { c: 'z' } }] };
    const q = { nested: { path: 'a', query: { nested: { path: 'a.b', query: T('a.b.c', 'z') } } } } as Query;
    expect(evaluate(q, doc, m)).toBe(true);
    expect(evaluate(q, doc)).toBe(true);
    const q2 = { nested: { path: 'a', query: { nested: { path: 'a.b', query: T('a.b.c', 'w') } } } } as Query;
    expect(evaluate(q2, doc, m)).toBe(false);
  });
});


describe('errors', () => {
  it('names unknown query kinds', () => {
    expect(() => evaluate({ trem: { tags: 'x' } } as unknown as Query, image)).toThrow(/trem/);
    expect(() => evaluate({ query_string: { query: 'x' } } as Query, image)).toThrow(/query_string/);
  });

  it('rejects containers with zero or several kinds', () => {
    expect(() => evaluate({} as Query, image)).toThrow(/exactly one/);
    expect(() => evaluate({ term: { a: 1 }, exists: { field: 'a' } } as unknown as Query, image)).toThrow(/exactly one/);
  });

  it('matches nothing (without throwing) for value queries on object fields', () => {
    check(T('image', 'a'), image, false);
    check({ range: { image: { gte: 'a' } } }, image, false);
    check({ wildcard: { image: 'a*' } }, image, false);
  });

  it('rejects field queries with several fields', () => {
    expect(() => evaluate({ term: { a: 1, b: 2 } } as unknown as Query, image)).toThrow(/exactly one field/);
  });
});

describe('evaluate cache and compileEvaluator', () => {
  it('caches per query object and per mapping', () => {
    const q = T('unmapped', 'x') as Query;
    const doc = { unmapped: 'x' };
    expect(evaluate(q, doc)).toBe(true);
    expect(evaluate(q, doc, mapping)).toBe(false);
    expect(evaluate(q, doc)).toBe(true);
  });

  it('compileEvaluator returns a reusable predicate', () => {
    const fn = compileEvaluator({ bool: { filter: [T('tags', 'safe'), { range: { score: { gte: 100 } } }] } } as Query, mapping);
    expect(fn(image)).toBe(true);
    expect(fn({ ...image, score: 5 })).toBe(false);
    expect(fn({ ...image, tags: 'safe' })).toBe(true);
    expect(fn({})).toBe(false);
  });
});

describe('properties', () => {
  const value = fc.oneof(
    fc.constantFrom('a', 'b', 'A', '1', '2', 'true', ''),
    fc.integer({ min: 0, max: 3 }),
    fc.boolean(),
    fc.constant(null),
  );
  const field = fc.oneof(value, fc.array(value, { maxLength: 4 }));

  it('top-level fast paths agree with the general path on object fields', () => {
    const queries = fc.oneof(
      fc.record({ term: fc.record({ f: fc.constantFrom('a', 'A', '1', 'true', '') }) }),
      fc.record({ term: fc.record({ f: fc.record({ value: fc.constantFrom('a', 1, true), case_insensitive: fc.boolean() }) }) }),
      fc.record({ terms: fc.record({ f: fc.array(fc.constantFrom('a', 'b', 1, 2, true), { maxLength: 3 }) }) }),
      fc.record({ range: fc.record({ f: fc.record({ gte: fc.integer({ min: 0, max: 3 }) }) }) }),
      fc.record({ exists: fc.constant({ field: 'f' }) }),
      fc.record({ wildcard: fc.record({ f: fc.constantFrom('a*', '?', '*') }) }),
    );
    const nestedName = (q: Record<string, Record<string, unknown>>) => {
      const [kind, body] = Object.entries(q)[0] as [string, Record<string, unknown>];
      if (kind === 'exists') return { exists: { field: 'o.f' } };
      return { [kind]: { 'o.f': body.f } };
    };
    const keywordMapping: IndexMapping = {
      dynamic: false,
      properties: { f: { type: 'keyword' }, o: { type: 'object', properties: { f: { type: 'keyword' } } } },
    };
    fc.assert(
      fc.property(queries, field, (q, v) => {
        const top = q as Query;
        const deep = nestedName(q as Record<string, Record<string, unknown>>) as Query;
        for (const m of [undefined, keywordMapping]) {
          let a: boolean | Error;
          let b: boolean | Error;
          try {
            a = evaluate(top, { f: v }, m);
          } catch (e) {
            a = e as Error;
          }
          try {
            b = evaluate(deep, { o: { f: v } }, m);
          } catch (e) {
            b = e as Error;
          }
          if (a instanceof Error || b instanceof Error) expect(String(a)).toBe(String(b));
          else expect(a).toBe(b);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('ISO date fast path agrees with instant comparison', () => {
    const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2040, 0, 1) });
    fc.assert(
      fc.property(instant, instant, fc.constantFrom('gt', 'gte', 'lt', 'lte'), fc.boolean(), (docT, boundT, op, short) => {
        const t = short ? Math.floor(docT / 1000) * 1000 : docT;
        const iso = new Date(t).toISOString();
        const docValue = short ? iso.slice(0, 19) + 'Z' : iso;
        const bound = new Date(boundT).toISOString();
        const expected = op === 'gt' ? t > boundT : op === 'gte' ? t >= boundT : op === 'lt' ? t < boundT : t <= boundT;
        const q = { range: { created_at: { [op]: bound } } } as Query;
        expect(evaluate(q, { created_at: docValue }, mapping)).toBe(expected);
        expect(evaluate(q, { o: 1, created_at: [docValue] }, undefined)).toBe(expected);
        expect(evaluate(q, { created_at: new Date(t) }, mapping)).toBe(expected);
      }),
      { numRuns: 3000 },
    );
  });

  it('bool follows its logical definition', () => {
    const leaf = fc.constantFrom<[Query, boolean]>([T('tags', 'safe') as Query, true], [T('tags', 'nope') as Query, false]);
    fc.assert(
      fc.property(
        fc.array(leaf, { maxLength: 3 }),
        fc.array(leaf, { maxLength: 3 }),
        fc.array(leaf, { maxLength: 3 }),
        fc.array(leaf, { maxLength: 3 }),
        (must, filter, should, mustNot) => {
          const q = {
            bool: { must: must.map((x) => x[0]), filter: filter.map((x) => x[0]), should: should.map((x) => x[0]), must_not: mustNot.map((x) => x[0]) },
          } as Query;
          const required = [...must, ...filter];
          const expected =
            required.every((x) => x[1]) &&
            !mustNot.some((x) => x[1]) &&
            (should.length === 0 || required.length > 0 || should.some((x) => x[1]));
          expect(evaluate(q, image, mapping)).toBe(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
